import type { HistoryRow } from '@shared/ipc/history'
import { describe, expect, it } from 'vitest'
import {
  agentOptions,
  appendPage,
  clipForDisplay,
  formatBytes,
  formatDuration,
  formatStarted,
  formatTimestamp,
  hasFilters,
  historyPageSize,
  inputFields,
  inputPreview,
  listInputOf,
  mergeFirstPage,
  noFilters,
  outputNotes,
  providerFacts,
  statusLabel,
  statusTone,
  toolOptions,
  verificationText,
  withStatus
} from './history-selectors'

const row = (seq: number, overrides: Partial<HistoryRow> = {}): HistoryRow => ({
  seq,
  id: `call-${seq}`,
  agentId: 'coder',
  sessionId: 's1',
  tool: 'run_command',
  status: 'success',
  providerId: 'bubblewrap',
  exitCode: 0,
  durationMs: 12,
  startedAt: '2026-01-01T10:00:00Z',
  finishedAt: '2026-01-01T10:00:01Z',
  error: null,
  inputSummary: { command: 'ls' },
  approval: null,
  ...overrides
})
const seqs = (rows: HistoryRow[]) => rows.map((r) => r.seq)

describe('history filters', () => {
  it('sends only the filters that are set, trimmed, with the page size and cursor', () => {
    expect(listInputOf(noFilters)).toEqual({ limit: historyPageSize })
    expect(listInputOf({ agentId: 'coder', tool: ' run_code ', status: 'error', text: '  pytest  ' }, 42)).toEqual({
      agentId: 'coder',
      tool: 'run_code',
      status: 'error',
      text: 'pytest',
      cursor: 42,
      limit: historyPageSize
    })
    expect(listInputOf({ ...noFilters, text: '   ' })).toEqual({ limit: historyPageSize })
  })

  it('knows when a filter is set', () => {
    expect(hasFilters(noFilters)).toBe(false)
    expect(hasFilters({ ...noFilters, text: ' ' })).toBe(false)
    expect(hasFilters({ ...noFilters, status: 'blocked' })).toBe(true)
  })

  it('offers registered agents, agents seen in rows and the selected one, sorted; tools likewise', () => {
    expect(agentOptions(['b'], [row(1, { agentId: 'a' }), row(2, { agentId: null })], 'gone')).toEqual(['a', 'b', 'gone'])
    expect(toolOptions([row(1, { tool: 'fs__read' })])).toContain('fs__read')
    expect(toolOptions([])).toContain('run_command')
  })
})

describe('history paging and live refresh', () => {
  it('appends a further page without duplicates', () => {
    const merged = appendPage({ rows: [row(10), row(9)], nextCursor: 9 }, { rows: [row(9), row(8), row(7)], nextCursor: 7 })
    expect(seqs(merged.rows)).toEqual([10, 9, 8, 7])
    expect(merged.nextCursor).toBe(7)
    expect(appendPage({ rows: [] }, { rows: [row(3)] })).toEqual({ rows: [row(3)], nextCursor: undefined })
  })

  it('lays a fresh first page over the loaded rows and keeps older pages with their cursor', () => {
    const loaded = { rows: [row(10), row(9), row(8), row(7)], nextCursor: 7 }
    const fresh = { rows: [row(12), row(11), row(10)], nextCursor: 10 }
    const merged = mergeFirstPage(loaded, fresh)
    expect(seqs(merged.rows)).toEqual([12, 11, 10, 9, 8, 7])
    expect(merged.nextCursor).toBe(7)
  })

  it('replaces the rows it covers (a running row now finished)', () => {
    const loaded = { rows: [row(10, { status: 'running' }), row(9)], nextCursor: 9 }
    const merged = mergeFirstPage(loaded, { rows: [row(11), row(10)], nextCursor: 10 })
    expect(merged.rows.map((r) => r.status)).toEqual(['success', 'success', 'success'])
    expect(merged.nextCursor).toBe(9)
  })

  it('takes a fresh page as it is when it is the whole list or does not reach the loaded rows', () => {
    expect(mergeFirstPage({ rows: [row(3), row(2)], nextCursor: 2 }, { rows: [row(4), row(3)] })).toEqual({ rows: [row(4), row(3)] })
    expect(mergeFirstPage({ rows: [] }, { rows: [row(5), row(4)], nextCursor: 4 })).toEqual({ rows: [row(5), row(4)], nextCursor: 4 })
    expect(mergeFirstPage({ rows: [row(3)] }, { rows: [row(5), row(4)], nextCursor: 4 })).toEqual({ rows: [row(5), row(4)], nextCursor: 4 })
    expect(mergeFirstPage({ rows: [row(3)] }, { rows: [] })).toEqual({ rows: [] })
    // More new calls than a page: the calls between the fresh page and the loaded rows are not loaded, so the loaded ones go.
    expect(mergeFirstPage({ rows: [row(10), row(9)], nextCursor: 9 }, { rows: [row(210), row(209)], nextCursor: 209 })).toEqual({ rows: [row(210), row(209)], nextCursor: 209 })
  })

  it('updates a loaded row’s status from an event, and returns the same array when nothing changes', () => {
    const rows = [row(2, { status: 'running' }), row(1)]
    expect(withStatus(rows, { id: 'call-2', status: 'timed_out' })[0]!.status).toBe('timed_out')
    expect(rows[0]!.status).toBe('running')
    expect(withStatus(rows, { id: 'call-9', status: 'error' })).toBe(rows)
    expect(withStatus(rows, { id: 'call-1', status: 'success' })).toBe(rows)
  })
})

describe('history formatting', () => {
  it('gives each status a tone and a label', () => {
    expect(statusTone('success')).toBe('ok')
    expect(statusTone('error')).toBe('bad')
    expect(statusTone('blocked')).toBe('bad')
    expect(statusTone('approval_required')).toBe('warn')
    expect(statusTone('running')).toBe('info')
    expect(statusTone('cancelled')).toBe('neutral')
    expect(statusLabel('approval_required')).toBe('approval required')
  })

  it('formats durations', () => {
    expect(formatDuration(null)).toBe('—')
    expect(formatDuration(12.4)).toBe('12 ms')
    expect(formatDuration(1432)).toBe('1.43 s')
    expect(formatDuration(12_345)).toBe('12.3 s')
    expect(formatDuration(125_000)).toBe('2m 05s')
    expect(formatDuration(3_720_000)).toBe('1h 02m')
  })

  it('shows the time of day for today and the date otherwise', () => {
    const now = new Date(2026, 0, 2, 12, 0, 0)
    expect(formatStarted(new Date(2026, 0, 2, 9, 5, 7).toISOString(), now)).toBe('09:05:07')
    expect(formatStarted(new Date(2026, 0, 1, 23, 59, 0).toISOString(), now)).toBe('2026-01-01 23:59:00')
    expect(formatTimestamp(new Date(2026, 0, 2, 9, 5, 7).toISOString())).toBe('2026-01-02 09:05:07')
  })

  it('previews an input by its command, path or code, else its JSON, on one shortened line', () => {
    expect(inputPreview({ command: 'pytest  -q\n-x' })).toBe('pytest -q -x')
    expect(inputPreview({ path: 'src/a.py', content: '…' })).toBe('src/a.py')
    expect(inputPreview({ language: 'python', sourceCode: 'print(1)\nprint(2)' })).toBe('print(1) print(2)')
    expect(inputPreview({ a: 1 })).toBe('{"a":1}')
    expect(inputPreview(null)).toBe('')
    expect(inputPreview({ command: 'x'.repeat(200) }, 20)).toHaveLength(20)
  })

  it('lays out an input summary as fields, code keeping its lines', () => {
    expect(inputFields(null)).toEqual([])
    expect(inputFields({ language: 'python', sourceCode: 'print(1)\nprint(2)', timeoutSeconds: 5, env: { A: '[redacted]' } })).toEqual([
      { key: 'language', text: 'python', block: false },
      { key: 'sourceCode', text: 'print(1)\nprint(2)', block: true },
      { key: 'timeoutSeconds', text: '5', block: false },
      { key: 'env', text: '{\n  "A": "[redacted]"\n}', block: true }
    ])
    expect(inputFields('raw')).toEqual([{ key: 'input', text: '"raw"', block: true }])
  })

  it('clips a long output for display and says how much is left out', () => {
    expect(clipForDisplay('abc', 5)).toEqual({ text: 'abc', omitted: 0 })
    expect(clipForDisplay('abcdefgh', 5)).toEqual({ text: 'abcde', omitted: 3 })
  })

  it('notes where an output is and what is missing from it', () => {
    expect(outputNotes({ text: 'ok', truncated: false, logFile: null, sha256: null })).toEqual([])
    const notes = outputNotes({ text: null, truncated: true, logFile: 'c1.stderr', sha256: 'ab'.repeat(32), problem: 'the log file logs/c1.stderr cannot be read (ENOENT)' })
    expect(notes.map((n) => n.tone)).toEqual(['muted', 'warning', 'error'])
    expect(notes[0]!.text).toContain('logs/c1.stderr')
    expect(notes[0]!.text).toContain('abababababab')
  })

  it('arranges provider facts: isolation axes, mechanism, fallback, probes and the rest', () => {
    expect(providerFacts(null)).toBeUndefined()
    const facts = providerFacts({
      providerId: 'docker',
      handleId: 'h1',
      isolation: { processContained: true, hostFilesystemRestricted: true, privilegeEscalationBlocked: false, syscallsRestricted: true, mechanism: 'docker', networkMode: 'none' },
      preferenceFallback: true,
      fallback: { reason: 'bubblewrap is not installed' },
      probes: [{ providerId: 'bubblewrap', eligible: false, reason: 'not installed' }, { providerId: 'docker', eligible: true }]
    })!
    expect(facts.providerId).toBe('docker')
    expect(facts.axes).toEqual([
      { label: 'process contained', on: true },
      { label: 'host filesystem restricted', on: true },
      { label: 'privilege escalation blocked', on: false },
      { label: 'syscalls restricted', on: true }
    ])
    expect(facts).toMatchObject({ mechanism: 'docker', networkMode: 'none', fallback: 'bubblewrap is not installed', other: [['handleId', 'h1']] })
    expect(facts.probes[0]).toEqual({ providerId: 'bubblewrap', eligible: false, reason: 'not installed' })
    expect(providerFacts({ providerId: 'x', preferenceFallback: true })!.fallback).toBe('the preferred isolation was not available')
    expect(providerFacts({ probes: [] })).toMatchObject({ providerId: undefined, axes: [], probes: [], fallback: undefined })
  })

  it('says what a chain verification found', () => {
    expect(verificationText({ ok: true, rows: 3, head: 'f'.repeat(64) })).toBe(`Chain intact: 3 rows check out; head ${'f'.repeat(16)}…`)
    expect(verificationText({ ok: true, rows: 1 })).toBe('Chain intact: 1 row checks out.')
    expect(verificationText({ ok: false, rows: 4, brokenAt: { seq: 5, id: 'c5' }, reason: 'hash mismatch' })).toBe(
      'Chain broken at row 5 (c5): hash mismatch. 4 rows check out before it.'
    )
  })

  it('formats byte counts', () => {
    expect(formatBytes(512)).toBe('512 B')
    expect(formatBytes(4300)).toBe('4.2 KiB')
    expect(formatBytes(3.1 * 1024 * 1024)).toBe('3.1 MiB')
  })
})
