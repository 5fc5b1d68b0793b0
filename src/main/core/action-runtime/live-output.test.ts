import { describe, expect, it } from 'vitest'
import { LiveOutput } from './live-output'

const bytes = (text: string) => new TextEncoder().encode(text)

describe('LiveOutput (what a running call printed last)', () => {
  it('tells the last complete line of either stream, redacted, without colours, control characters escaped, never a half-written line', () => {
    const live = new LiveOutput()
    const tell = live.begin('c1', ['hunter2-secret'])
    expect(live.lastLine('c1')).toBeUndefined()
    tell('stdout', bytes('collecting tests\n\x1b[32m12 passed\x1b[0m\n\nstill wri'))
    expect(live.lastLine('c1')).toBe('12 passed')
    tell('stdout', bytes('ting token=hunter2-'))
    // Half a line (and half a secret) is never told.
    expect(live.lastLine('c1')).toBe('12 passed')
    tell('stdout', bytes('secret\n'))
    expect(live.lastLine('c1')).toBe('still writing token=[redacted]')
    tell('stderr', bytes('rm -rf ~\rAll tests passed\r\n'))
    expect(live.lastLine('c1')).toBe('rm -rf ~\\x0dAll tests passed')
    live.end('c1')
    expect(live.lastLine('c1')).toBeUndefined()
  })

  it('keeps a multi-byte character split across chunks whole, and cuts a long line', () => {
    const live = new LiveOutput()
    const tell = live.begin('c2', [])
    const euro = bytes('€\n')
    tell('stdout', euro.subarray(0, 1))
    tell('stdout', euro.subarray(1))
    expect(live.lastLine('c2')).toBe('€')
    tell('stdout', bytes(`${'x'.repeat(10_000)}\n`))
    expect(live.lastLine('c2')).toHaveLength(200)
    expect(live.lastLine('c2')!.endsWith('…')).toBe(true)
  })
})
