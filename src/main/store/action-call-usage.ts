import type { Database } from 'better-sqlite3'
import type { HistoryStatus, HistoryUsage } from '@shared/ipc/history'
import { seqRangeOf } from './action-call-query'

const hourMs = 3_600_000

/** The longest usage window: 31 days (the chart's hourly buckets stay under 750). */
export const usageMaxWindowMs = 31 * 24 * hourMs

/**
 * Usage of one agent (or all) since `since` (floored to the hour, UTC) up to `now`: calls per
 * hour by status, every hour of the window present (zeros included), and the nearest-rank
 * p50/p90/p99 of the run times of finished calls (the wait for an approval excluded). Counted in SQL: the start-time window becomes a
 * seq range (see `seqRangeOf`), read through the primary key or the `(agent_id, seq)` index; the
 * percentiles come from one sorted read of the window's durations alone.
 */
export function usageOf(db: Database, query: { agentId?: string; since: Date; now: Date }): HistoryUsage {
  const start = Math.floor(query.since.getTime() / hourMs) * hourMs
  const since = new Date(start).toISOString()
  const buckets = new Map<string, HistoryUsage['buckets'][number]>()
  for (let hour = start; hour <= query.now.getTime(); hour += hourMs) {
    const at = new Date(hour).toISOString()
    buckets.set(at.slice(0, 13), { hour: at, counts: {} })
  }
  const range = seqRangeOf(db, since, undefined)
  if (range === 'empty') return { since, buckets: [...buckets.values()], durations: { count: 0, p50: null, p90: null, p99: null } }
  const where = ['started_at >= ?']
  const params: (string | number)[] = [since]
  if (range?.lo !== undefined) {
    where.push('seq >= ?')
    params.push(range.lo)
  }
  if (query.agentId !== undefined) {
    where.push('agent_id = ?')
    params.push(query.agentId)
  }
  const filter = where.join(' and ')
  const counts = db
    .prepare(
      `select substr(started_at, 1, 13) as hour, case when status = 'running' and waiting_since is not null then 'waiting_approval' else status end as shown, count(*) as calls
       from action_calls where ${filter} group by hour, shown`
    )
    .all(...params) as { hour: string; shown: HistoryStatus; calls: number }[]
  for (const { hour, shown: status, calls } of counts) {
    const bucket = buckets.get(hour)
    // A start after `now` (a clock set forward) has no bucket in the window.
    if (bucket) bucket.counts[status] = calls
  }
  // One sorted read of the window's run times (numbers only) gives every percentile: a call's
  // duration without the time it waited for the operator (`wait_ms`, recorded with its approval).
  const durations = db
    .prepare(`select max(duration_ms - coalesce(wait_ms, 0), 0) as run from action_calls where ${filter} and duration_ms is not null order by run`)
    .pluck()
    .all(...params) as number[]
  const count = durations.length
  const percentile = (p: number) => (count === 0 ? null : (durations[Math.max(Math.ceil(p * count), 1) - 1] as number))
  return { since, buckets: [...buckets.values()], durations: { count, p50: percentile(0.5), p90: percentile(0.9), p99: percentile(0.99) } }
}
