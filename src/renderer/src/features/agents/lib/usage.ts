import { historyStatuses, type HistoryRow, type HistoryStatus, type HistoryUsage } from '@shared/ipc/history'

/** The windows the usage chart offers, in hours. */
export const usageRanges = [
  { id: '24h', label: '24 h', hours: 24 },
  { id: '7d', label: '7 days', hours: 7 * 24 },
  { id: '30d', label: '30 days', hours: 30 * 24 }
] as const

/** A usage window's id. */
export type UsageRangeId = (typeof usageRanges)[number]['id']

/** The start of a usage window ending now, on the hour (so the first bucket is whole). */
export function usageSince(range: UsageRangeId, now: number): string {
  const hours = usageRanges.find((r) => r.id === range)!.hours
  const start = new Date(now - (hours - 1) * 3600_000)
  start.setUTCMinutes(0, 0, 0)
  return start.toISOString()
}

/** One bar of the chart: the hour (epoch ms) and the calls that started in it, one key per status. */
export type UsageRow = { hour: number } & Record<HistoryStatus, number>

/** Chart rows from the host's hourly buckets: every status present (zero when none), oldest first. */
export function usageRows(usage: HistoryUsage): UsageRow[] {
  return usage.buckets
    .map((bucket) => {
      const row = { hour: Date.parse(bucket.hour) } as UsageRow
      for (const status of historyStatuses) row[status] = bucket.counts[status] ?? 0
      return row
    })
    .sort((a, b) => a.hour - b.hour)
}

/** Calls in the window by status, and their sum. */
export function usageTotals(usage: HistoryUsage): { total: number; byStatus: Partial<Record<HistoryStatus, number>> } {
  const byStatus: Partial<Record<HistoryStatus, number>> = {}
  let total = 0
  for (const bucket of usage.buckets) {
    for (const [status, count] of Object.entries(bucket.counts) as [HistoryStatus, number][]) {
      byStatus[status] = (byStatus[status] ?? 0) + count
      total += count
    }
  }
  return { total, byStatus }
}

/** The order statuses are stacked and listed in: how calls ended first, calls still running last. */
export const statusOrder: readonly HistoryStatus[] = ['success', 'error', 'blocked', 'approval_required', 'timed_out', 'cancelled', 'interrupted', 'running']

/** The statuses that occur in the window, in `statusOrder` (the chart draws one series each). */
export function usedStatuses(usage: HistoryUsage): HistoryStatus[] {
  const { byStatus } = usageTotals(usage)
  return statusOrder.filter((status) => (byStatus[status] ?? 0) > 0)
}

/** What a recorded call was about, in one line: its command, path, code's first line, or its input as JSON. */
export function callSubject(row: Pick<HistoryRow, 'inputSummary'>): string {
  const input = row.inputSummary
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const fields = input as Record<string, unknown>
    for (const key of ['command', 'path', 'url', 'query', 'name']) if (typeof fields[key] === 'string') return fields[key] as string
    if (typeof fields.code === 'string') return (fields.code as string).split('\n').find((line) => line.trim() !== '') ?? ''
    const json = JSON.stringify(input)
    return json === '{}' ? '' : json
  }
  return input === undefined || input === null ? '' : String(input)
}
