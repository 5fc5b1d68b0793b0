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

  it('keeps numbered lines for a console opening late: after a line, redacted, escapes kept, hidden reports left out, a never-ending line cut', () => {
    const live = new LiveOutput()
    const tell = live.begin('c3', ['hunter2-secret'])
    tell('stdout', bytes('one\n\x1b[31mtwo\x1b[0m\n'))
    tell('stderr', bytes('token hunter2-secret\n'))
    live.hide('c3', 'MARK')
    tell('stdout', bytes('\nMARK/workMARK\nthree\n'))
    expect(live.linesAfter('c3')).toEqual({
      lines: [
        { n: 1, stream: 'stdout', text: 'one' },
        { n: 2, stream: 'stdout', text: '\x1b[31mtwo\x1b[0m' },
        { n: 3, stream: 'stderr', text: 'token [redacted]' },
        { n: 4, stream: 'stdout', text: '' },
        { n: 5, stream: 'stdout', text: 'three' }
      ],
      skipped: 0
    })
    expect(live.linesAfter('c3', 4)).toEqual({ lines: [{ n: 5, stream: 'stdout', text: 'three' }], skipped: 0 })
    tell('stdout', bytes('y'.repeat(10_000)))
    expect(live.linesAfter('c3', 5)!.lines.map((line) => line.text.length)).toEqual([4096, 4096])
    live.end('c3')
    expect(live.linesAfter('c3')).toBeUndefined()
  })

  it('under a flood keeps only the newest lines, and a read is bounded with the rest counted as skipped', () => {
    const live = new LiveOutput()
    const told: string[] = []
    live.onLines((callId) => told.push(callId))
    const tell = live.begin('c4', [])
    const line = `${'z'.repeat(99)}\n`
    for (let chunk = 0; chunk < 200; chunk++) tell('stdout', bytes(line.repeat(650)))
    const all = live.linesAfter('c4', 0, Number.MAX_SAFE_INTEGER)!
    expect(all.lines.length).toBeLessThanOrEqual(2 * 2000)
    expect(all.lines.at(-1)!.n).toBe(200 * 650)
    expect(all.skipped + all.lines.length).toBe(200 * 650)
    const read = live.linesAfter('c4', 0, 10_000)!
    expect(read.lines).toHaveLength(101) // 101 × 99 characters ≤ 10 000
    expect(read.lines.at(-1)!.n).toBe(200 * 650)
    expect(read.skipped).toBe(200 * 650 - 101)
    expect(told).toHaveLength(200)
  })

  it('never tells a secret split by colour codes or by the cut of a line that never ends (found in review)', () => {
    const secret = 's3cr3t-VALUE-0123456789abcdefXYZ'
    const live = new LiveOutput()
    const tell = live.begin('c5', [secret])
    tell('stdout', bytes('token=s3cr3t-VAL\x1b[1m\x1b[22mUE-0123456789abcdefXYZ\n'))
    tell('stdout', bytes('\x1b[32mok\x1b[0m and \x1b]0;title s3cr3t-VALUE-0123456789abcdefXYZ\x07\n'))
    tell('stdout', bytes(`${'a'.repeat(4086)}${secret}${'b'.repeat(100)}\n`))
    const told = live.linesAfter('c5', 0, Number.MAX_SAFE_INTEGER)!.lines.map((line) => line.text)
    expect(told.join('\n')).not.toContain('s3cr3t')
    // As the console shows them: escapes dropped.
    // eslint-disable-next-line no-control-regex -- escape sequences are what this removes
    expect(told.join('\n').replace(/\x1b(?:\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\][^\x07]*\x07)/g, '')).not.toContain('s3cr3t')
    expect(told[0]).toBe('token=[redacted]')
    // A line whose colours hide nothing keeps them.
    expect(told[1]).toContain('\x1b[32mok\x1b[0m')
    expect(told.slice(2).join('')).toContain('[redacted]')
  })
})
