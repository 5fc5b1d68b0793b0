import { describe, expect, it } from 'vitest'
import { coalescedRefresh } from './coalesced-refresh'

describe('coalescedRefresh', () => {
  it('turns a burst during a run into exactly one more run, and shares the promise', async () => {
    let runs = 0
    let release: () => void = () => undefined
    const refresh = coalescedRefresh(async () => {
      runs += 1
      if (runs === 1) await new Promise<void>((resolve) => (release = resolve))
    })
    const first = refresh()
    const burst = [refresh(), refresh(), refresh()]
    expect(burst.every((p) => p === first)).toBe(true)
    release()
    await first
    expect(runs).toBe(2)
    await refresh()
    expect(runs).toBe(3)
  })
})
