import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { ActionStatus } from '../core'
import { HistoryService } from '../console/history-service'
import { storeEachTest } from '../../../test/support/temp-store'

// history.count and history.usage over a real SQLite file: the counts the History view's count
// line and the Agents view's usage chart show, checked against rows written through the repository.
const fresh = storeEachTest()

const hour = 3_600_000
const now = new Date('2025-03-10T12:30:00.000Z')

/** Records one call that started at `startedAt` and ended with `status` after `durationMs` (or is left running). */
function call(options: {
  agentId?: string
  tool?: string
  status?: ActionStatus | 'running'
  durationMs?: number
  startedAt: Date
  text?: string
  providerId?: string
}): string {
  const callId = randomUUID()
  fresh.store.history.begin({
    callId,
    agentId: options.agentId ?? 'coder',
    sessionId: 's1',
    tool: options.tool ?? 'run_command',
    inputSummary: { command: options.text ?? 'make test' },
    startedAt: options.startedAt.toISOString()
  })
  if (options.status === 'running') return callId
  fresh.store.history.finish({
    callId,
    status: options.status ?? 'success',
    finishedAt: new Date(options.startedAt.getTime() + (options.durationMs ?? 10)).toISOString(),
    durationMs: options.durationMs ?? 10,
    artifacts: [],
    lineage: [],
    provider: options.providerId ? { providerId: options.providerId } : undefined
  })
  return callId
}

const service = () => new HistoryService(fresh.store.history, () => now)

describe('history.count over the real fresh.store', () => {
  it('counts what the list would page through, for every kind of filter', () => {
    const at = (hoursAgo: number) => new Date(now.getTime() - hoursAgo * hour)
    for (let i = 0; i < 30; i++)
      call({
        startedAt: at(10 - i / 10),
        status: i % 3 === 0 ? 'error' : 'success',
        tool: i % 2 === 0 ? 'run_command' : 'read_file',
        text: i % 5 === 0 ? 'pytest suite' : 'ls',
        providerId: i % 2 === 0 ? 'docker' : 'bubblewrap'
      })
    for (let i = 0; i < 7; i++) call({ agentId: 'other', startedAt: at(2), status: 'blocked' })
    const pageCount = (filters: Record<string, string>) => {
      let rows = 0
      let cursor: number | undefined
      do {
        const page = fresh.store.history.list({ ...filters, cursor, limit: 4 })
        rows += page.rows.length
        cursor = page.nextCursor
      } while (cursor !== undefined)
      return rows
    }
    const cases: [Record<string, string>, number][] = [
      [{}, 37],
      [{ agentId: 'coder' }, 30],
      [{ agentId: 'other' }, 7],
      [{ status: 'error' }, 10],
      [{ status: 'error', tool: 'run_command' }, 5],
      [{ providerId: 'docker', agentId: 'coder' }, 15],
      [{ text: 'pytest' }, 6],
      [{ text: 'pytest', status: 'error' }, 2],
      [{ since: at(3).toISOString() }, 7],
      [{ since: at(10).toISOString(), until: at(8).toISOString() }, 21],
      [{ agentId: 'nobody' }, 0],
      [{ text: '???' }, 0]
    ]
    for (const [filters, expected] of cases) {
      expect(service().count(filters), JSON.stringify(filters)).toEqual({ count: expected })
      expect(pageCount(filters), JSON.stringify(filters)).toBe(expected)
    }
  })
})

describe('history.usage over the real fresh.store', () => {
  it('buckets the last 24 hours by hour and status, zeros included, and only the chosen agent', () => {
    call({ startedAt: new Date('2025-03-10T12:05:00.000Z'), status: 'success' })
    call({ startedAt: new Date('2025-03-10T12:10:00.000Z'), status: 'error' })
    call({ startedAt: new Date('2025-03-10T12:20:00.000Z'), status: 'running' })
    call({ startedAt: new Date('2025-03-10T09:59:59.999Z'), status: 'blocked' })
    call({ startedAt: new Date('2025-03-09T12:00:00.000Z'), status: 'success' })
    // Before the window, and another agent's: counted nowhere here.
    call({ startedAt: new Date('2025-03-09T11:59:59.000Z'), status: 'success' })
    call({ agentId: 'other', startedAt: new Date('2025-03-10T12:15:00.000Z'), status: 'success' })

    const usage = service().usage({ agentId: 'coder' })
    expect(usage.since).toBe('2025-03-09T12:00:00.000Z')
    expect(usage.buckets).toHaveLength(25)
    expect(usage.buckets[0]).toEqual({ hour: '2025-03-09T12:00:00.000Z', counts: { success: 1 } })
    expect(usage.buckets.at(-1)).toEqual({ hour: '2025-03-10T12:00:00.000Z', counts: { success: 1, error: 1, running: 1 } })
    expect(usage.buckets.find((b) => b.hour === '2025-03-10T09:00:00.000Z')).toEqual({ hour: '2025-03-10T09:00:00.000Z', counts: { blocked: 1 } })
    expect(usage.buckets.filter((b) => Object.keys(b.counts).length === 0)).toHaveLength(22)
    // Every agent: the other agent's call joins the last hour.
    expect(service().usage({}).buckets.at(-1)?.counts).toEqual({ success: 2, error: 1, running: 1 })
  })

  it('reports nearest-rank duration percentiles of finished calls only', () => {
    const base = new Date(now.getTime() - 2 * hour)
    for (let ms = 1; ms <= 100; ms++) call({ startedAt: new Date(base.getTime() + ms * 1000), durationMs: ms * 10 })
    call({ startedAt: base, status: 'running' })
    call({ agentId: 'other', startedAt: base, durationMs: 999_999 })
    expect(service().usage({ agentId: 'coder' }).durations).toEqual({ count: 100, p50: 500, p90: 900, p99: 990 })
    expect(service().usage({ agentId: 'nobody' }).durations).toEqual({ count: 0, p50: null, p90: null, p99: null })
  })

  it('takes a window of up to 31 days, and refuses one further back or in the future', () => {
    call({ startedAt: new Date(now.getTime() - 20 * 24 * hour), status: 'success' })
    const month = service().usage({ since: new Date(now.getTime() - 31 * 24 * hour).toISOString() })
    expect(month.buckets).toHaveLength(31 * 24 + 1)
    expect(month.buckets.reduce((sum, b) => sum + (b.counts.success ?? 0), 0)).toBe(1)
    expect(() => service().usage({ since: new Date(now.getTime() - 32 * 24 * hour).toISOString() })).toThrow(
      expect.objectContaining({ code: 'history.invalid_query', message: expect.stringMatching(/31 days/) })
    )
    expect(() => service().usage({ since: new Date(now.getTime() + hour).toISOString() })).toThrow(expect.objectContaining({ code: 'history.invalid_query' }))
  })

  it('counts a call recorded after the clock went back in the hour it says it started', () => {
    call({ startedAt: new Date('2025-03-10T11:10:00.000Z') })
    call({ startedAt: new Date('2025-03-10T08:10:00.000Z') })
    const buckets = service().usage({ since: '2025-03-10T08:00:00.000Z' }).buckets
    expect(buckets.map((b) => b.counts.success ?? 0)).toEqual([1, 0, 0, 1, 0])
  })
})
