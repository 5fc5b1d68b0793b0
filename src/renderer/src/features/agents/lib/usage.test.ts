import type { HistoryUsage } from '@shared/ipc/history'
import { describe, expect, it } from 'vitest'
import { callSubject, usageRows, usageSince, usageTotals, usedStatuses } from './usage'

const usage: HistoryUsage = {
  since: '2026-01-01T10:00:00.000Z',
  buckets: [
    { hour: '2026-01-01T11:00:00.000Z', counts: { success: 3, error: 1 } },
    { hour: '2026-01-01T10:00:00.000Z', counts: {} },
    { hour: '2026-01-01T12:00:00.000Z', counts: { success: 2, approval_required: 1 } }
  ],
  durations: { count: 6, p50: 120, p90: 900, p99: 4200 }
}

describe('usage', () => {
  it('starts a window on the hour, the current hour included', () => {
    const now = Date.parse('2026-01-02T10:37:12Z')
    expect(usageSince('24h', now)).toBe('2026-01-01T11:00:00.000Z')
    expect(usageSince('7d', now)).toBe('2025-12-26T11:00:00.000Z')
  })

  it('makes one row per hour, oldest first, every status present', () => {
    const rows = usageRows(usage)
    expect(rows.map((r) => new Date(r.hour).toISOString())).toEqual(['2026-01-01T10:00:00.000Z', '2026-01-01T11:00:00.000Z', '2026-01-01T12:00:00.000Z'])
    expect(rows[1]).toMatchObject({ success: 3, error: 1, blocked: 0, running: 0 })
    expect(rows[0]!.success).toBe(0)
  })

  it('totals calls by status and lists only the statuses that occur, running last', () => {
    expect(usageTotals(usage)).toEqual({ total: 7, byStatus: { success: 5, error: 1, approval_required: 1 } })
    expect(usedStatuses(usage)).toEqual(['success', 'error', 'approval_required'])
    expect(usedStatuses({ ...usage, buckets: [{ hour: usage.since, counts: { running: 1, timed_out: 2, success: 1 } }] })).toEqual([
      'success',
      'timed_out',
      'running'
    ])
  })

  it('names what a call was about', () => {
    expect(callSubject({ inputSummary: { command: 'ls -la' } })).toBe('ls -la')
    expect(callSubject({ inputSummary: { path: 'notes/a.md', content: 'x' } })).toBe('notes/a.md')
    expect(callSubject({ inputSummary: { code: '\nimport os\nprint(1)' } })).toBe('import os')
    expect(callSubject({ inputSummary: { a: 1 } })).toBe('{"a":1}')
    expect(callSubject({ inputSummary: {} })).toBe('')
    expect(callSubject({ inputSummary: null })).toBe('')
  })
})
