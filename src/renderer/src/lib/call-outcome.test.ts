import { describe, expect, it } from 'vitest'
import { nonZeroExit } from './call-outcome'

describe('nonZeroExit (a success whose program failed)', () => {
  it('is the exit code of a success that exited non-zero, and nothing otherwise', () => {
    expect(nonZeroExit('success', 128)).toBe(128)
    expect(nonZeroExit('success', 0)).toBeUndefined()
    expect(nonZeroExit('success', null)).toBeUndefined()
    // Other statuses say what happened themselves.
    expect(nonZeroExit('timed_out', 124)).toBeUndefined()
  })
})
