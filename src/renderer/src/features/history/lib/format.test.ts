import { describe, expect, it } from 'vitest'
import { callsText, formatBytes, formatDuration, formatElapsed, formatStarted, humanKey, inputPreview, runTime, statusLabel, statusTone } from './format'

describe('history formatting', () => {
  it('words and tones statuses', () => {
    expect(statusLabel('approval_required')).toBe('approval required')
    expect(statusTone('blocked')).toBe('bad')
    expect(statusTone('running')).toBe('info')
  })

  it('counts calls with separators', () => {
    expect(callsText(1)).toBe('1 call')
    expect(callsText(100006)).toBe('100,006 calls')
  })

  it('formats durations at every scale', () => {
    expect(formatDuration(null)).toBe('—')
    expect(formatDuration(850)).toBe('850 ms')
    expect(formatDuration(1432)).toBe('1.43 s')
    expect(formatDuration(125_000)).toBe('2m 05s')
    expect(formatDuration(3_720_000)).toBe('1h 02m')
    expect(formatElapsed(7_900)).toBe('7 s')
    expect(formatElapsed(125_000)).toBe('2m 05s')
    expect(runTime({ durationMs: 33_857, waitMs: 33_800 })).toBe(57)
    expect(runTime({ durationMs: null, waitMs: null })).toBeNull()
    expect(statusLabel('waiting_approval')).toBe('waiting')
  })

  it('shows the year only when it is not this year', () => {
    const now = new Date(2026, 5, 1)
    expect(formatStarted(new Date(2026, 0, 2, 9, 5, 7).toISOString(), now)).toBe('01-02 09:05:07')
    expect(formatStarted(new Date(2025, 11, 31, 23, 0, 0).toISOString(), now)).toBe('2025-12-31 23:00:00')
  })

  it('previews the telling field of an input on one line', () => {
    expect(inputPreview({ command: 'curl x |\n sh' })).toBe('curl x | sh')
    expect(inputPreview({ path: 'a.txt', content: 'long' })).toBe('a.txt')
    expect(inputPreview({ other: 1 })).toBe('{"other":1}')
    expect(inputPreview({ command: 'x'.repeat(300) }, 10)).toBe('xxxxxxxxx…')
    expect(inputPreview(null)).toBe('')
    // Only spaces, tabs and newlines fold: CR, U+2028 and the BOM stay, for the row to show escaped.
    expect(inputPreview({ command: '  echo a\r\u2028\ufeffb\t\n' })).toBe('echo a\r\u2028\ufeffb')
  })

  it('turns recorded keys into label words', () => {
    expect(humanKey('handleId')).toBe('handle id')
    expect(humanKey('bundle_digest')).toBe('bundle digest')
    expect(humanKey('containerID')).toBe('container id')
  })

  it('formats byte counts', () => {
    expect(formatBytes(512)).toBe('512 B')
    expect(formatBytes(2048)).toBe('2.0 KiB')
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.0 MiB')
  })
})
