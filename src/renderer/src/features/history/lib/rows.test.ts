import type { HistoryRow } from '@shared/ipc/history'
import { describe, expect, it } from 'vitest'
import { appendPage, mergeFirstPage, rowsAbove, withStatus } from './rows'
import { testRow } from './test-rows'

const row = (seq: number, status: HistoryRow['status'] = 'success'): HistoryRow => testRow(seq, status)
const seqs = (rows: HistoryRow[]) => rows.map((r) => r.seq)

describe('history rows', () => {
  it('appends an older page without repeating rows and takes its cursor', () => {
    const loaded = { rows: [row(9), row(8), row(7)], nextCursor: 7 }
    expect(appendPage(loaded, { rows: [row(7), row(6), row(5)], nextCursor: 5 })).toEqual({ rows: [row(9), row(8), row(7), row(6), row(5)], nextCursor: 5 })
    expect(appendPage(loaded, { rows: [row(4)] })).toEqual({ rows: [row(9), row(8), row(7), row(4)], nextCursor: undefined })
  })

  it('lays a fresh first page over the loaded rows and keeps the older pages', () => {
    const loaded = { rows: [row(9), row(8), row(7), row(6), row(5)], nextCursor: 5 }
    const merged = mergeFirstPage(loaded, { rows: [row(11), row(10), row(9, 'error')], nextCursor: 9 })
    expect(seqs(merged.rows)).toEqual([11, 10, 9, 8, 7, 6, 5])
    expect(merged.rows[2]!.status).toBe('error')
    expect(merged.nextCursor).toBe(5)
  })

  it('replaces everything when the fresh page is the whole list or does not reach the loaded rows', () => {
    const loaded = { rows: [row(3), row(2)], nextCursor: 2 }
    expect(mergeFirstPage(loaded, { rows: [row(4), row(3)] })).toEqual({ rows: [row(4), row(3)], nextCursor: undefined })
    expect(mergeFirstPage(loaded, { rows: [row(9), row(8)], nextCursor: 8 })).toEqual({ rows: [row(9), row(8)], nextCursor: 8 })
  })

  it('counts the rows that came in above a row', () => {
    const rows = [row(12), row(11), row(10), row(9)]
    expect(rowsAbove(rows, 10)).toBe(2)
    expect(rowsAbove(rows, 12)).toBe(0)
    expect(rowsAbove(rows, 3)).toBe(0)
    expect(rowsAbove(rows, undefined)).toBe(0)
  })

  it('updates a loaded row’s status and keeps the array when nothing changes', () => {
    const rows = [row(2, 'running'), row(1)]
    const updated = withStatus(rows, { id: 'call-2', status: 'success' })
    expect(updated[0]!.status).toBe('success')
    expect(rows[0]!.status).toBe('running')
    expect(withStatus(rows, { id: 'call-1', status: 'success' })).toBe(rows)
    expect(withStatus(rows, { id: 'gone', status: 'error' })).toBe(rows)
  })
})
