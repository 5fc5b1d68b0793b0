import type { HistoryListInput, HistoryRow } from '@shared/ipc/history'
import { fail, ok } from '@shared/result'
import { describe, expect, it, vi } from 'vitest'
import type { HistoryClient } from './client'
import { createHistoryStore } from './history-state'
import { liveCoalesceMs } from './rows-slice'
import { testRow } from '../lib/test-rows'

/**
 * The store against a host stand-in at the contract boundary: an in-memory history with the
 * contract's paging (newest first, `cursor` = the last seq of the page before, `nextCursor` only
 * when more remain) and status filter. What is under test is the store's paging, merging, export
 * and cancellation, not the host.
 */
function fakeHost(total: number) {
  const rows: HistoryRow[] = []
  const add = (status: HistoryRow['status'] = 'success') => {
    const seq = rows.length + 1
    rows.unshift(testRow(seq, status, { startedAt: new Date(seq * 1000).toISOString(), inputSummary: { path: `f${seq}` } }))
  }
  for (let index = 0; index < total; index++) add(index % 10 === 0 ? 'error' : 'success')
  const matching = (input: Omit<HistoryListInput, 'cursor' | 'limit'>) => rows.filter((row) => !input.status || row.status === input.status)
  const calls: HistoryListInput[] = []
  let gate: Promise<void> | undefined
  let refusal: { code: string; message: string } | undefined
  const client = {
    history: {
      list: async (input: HistoryListInput) => {
        calls.push(input)
        await gate // the gate as it was when the call was made
        if (refusal) return fail(refusal.code, refusal.message)
        const all = matching(input).filter((row) => input.cursor === undefined || row.seq < input.cursor)
        const page = all.slice(0, input.limit ?? 50)
        return ok({ rows: page, ...(all.length > page.length ? { nextCursor: page[page.length - 1]!.seq } : {}) })
      },
      count: async (input: HistoryListInput) => ok({ count: matching(input).length }),
      detail: async () => ok(undefined),
      verify: async () => ok({ ok: true, rows: rows.length })
    },
    agents: { list: async () => ok([{ id: 'coder' }]) },
    providers: { list: async () => ok({ providers: [{ providerId: 'bubblewrap' }], codeExecutionOrder: [] }) }
  }
  const saved: { parts: BlobPart[]; name: string }[] = []
  const downloads = { save: (parts: BlobPart[], name: string) => saved.push({ parts, name }), now: () => new Date(2026, 0, 2, 9, 5) }
  return {
    store: createHistoryStore(client as unknown as HistoryClient, downloads),
    add,
    calls,
    saved,
    /** Holds the answers of the list calls made from now on until the returned release is called (calls made after `stopHolding` pass). */
    hold() {
      let release!: () => void
      gate = new Promise((resolve) => (release = resolve))
      return release
    },
    stopHolding() {
      gate = undefined
    },
    /** From now on `history.list` is refused with this error (undefined: answered again). */
    refuseLists(error: { code: string; message: string } | undefined) {
      refusal = error
    }
  }
}

describe('history store', () => {
  it('loads a small first page with the count, then pages on with the cursor', async () => {
    const host = fakeHost(1234)
    await host.store.getState().load()
    let state = host.store.getState()
    expect(state.rows).toHaveLength(200)
    expect(state.count).toBe(1234)
    expect(state.nextCursor).toBe(1035)
    await state.loadMore()
    state = host.store.getState()
    expect(state.rows).toHaveLength(700)
    expect(host.calls.at(-1)).toEqual({ cursor: 1035, limit: 500 })
    await state.loadMore()
    await host.store.getState().loadMore()
    state = host.store.getState()
    expect(state.rows).toHaveLength(1234)
    expect(state.nextCursor).toBeUndefined()
    expect(new Set(state.rows.map((row) => row.seq)).size).toBe(1234)
  })

  it('drops the answer for filters the operator already changed', async () => {
    const host = fakeHost(300)
    await host.store.getState().load()
    const release = host.hold()
    const slow = host.store.getState().setFilters({ status: 'error' })
    host.stopHolding()
    await host.store.getState().setFilters({ status: '' })
    release()
    await slow
    const state = host.store.getState()
    expect(state.filters.status).toBe('')
    expect(state.rows).toHaveLength(200)
    expect(state.count).toBe(300)
  })

  it('puts calls that arrive on top, keeps the pages loaded below, and recounts', async () => {
    vi.useFakeTimers()
    try {
      const host = fakeHost(900)
      await host.store.getState().load()
      await host.store.getState().loadMore()
      host.add()
      host.add('error')
      host.store.getState().receive({ id: 'call-902', status: 'error' })
      await vi.advanceTimersByTimeAsync(liveCoalesceMs + 10)
      const state = host.store.getState()
      expect(state.rows.slice(0, 3).map((row) => row.seq)).toEqual([902, 901, 900])
      expect(state.rows).toHaveLength(702)
      expect(state.nextCursor).toBe(201)
      expect(state.count).toBe(902)
    } finally {
      vi.useRealTimers()
    }
  })

  it('exports the filtered set as JSONL, 500 rows a page, and saves it once', async () => {
    const host = fakeHost(1234)
    await host.store.getState().setFilters({ status: 'error' })
    await host.store.getState().startExport()
    expect(host.store.getState().exporting).toEqual({ status: 'done', rows: 124, fileName: 'airlock-history-20260102-0905-status-error.jsonl' })
    expect(host.saved).toHaveLength(1)
    const lines = (host.saved[0]!.parts as string[]).join('').trim().split('\n')
    expect(lines).toHaveLength(124)
    expect(lines.every((line) => JSON.parse(line).status === 'error')).toBe(true)

    await host.store.getState().setFilters({ status: '' })
    await host.store.getState().startExport()
    expect(host.calls.filter((call) => call.limit === 500 && call.status === undefined).length).toBeGreaterThanOrEqual(3)
    expect((host.saved[1]!.parts as string[]).join('').trim().split('\n')).toHaveLength(1234)
  })

  it('cancels an export: nothing is saved and the progress says so', async () => {
    const host = fakeHost(1234)
    await host.store.getState().load()
    const release = host.hold()
    const running = host.store.getState().startExport()
    host.stopHolding()
    expect(host.store.getState().exporting).toEqual({ status: 'running', rows: 0, total: 1234 })
    host.store.getState().cancelExport()
    release()
    await running
    expect(host.store.getState().exporting).toEqual({ status: 'cancelled', rows: 0 })
    expect(host.saved).toHaveLength(0)
  })

  it("keeps the host's error code and message when a page or an export is refused", async () => {
    const host = fakeHost(700)
    await host.store.getState().load()
    const refused = { code: 'store.busy', message: 'The database is locked by another process.' }
    host.refuseLists(refused)
    await host.store.getState().loadMore()
    expect(host.store.getState()).toMatchObject({ moreError: refused, loadingMore: false, rows: { length: 200 } })
    await host.store.getState().startExport()
    expect(host.store.getState().exporting).toEqual({ status: 'error', rows: 0, error: refused })
    await host.store.getState().setFilters({ status: 'error' })
    expect(host.store.getState()).toMatchObject({ status: 'error', error: refused, rows: [] })
    host.refuseLists(undefined)
    await host.store.getState().loadMore()
    await host.store.getState().load()
    expect(host.store.getState()).toMatchObject({ status: 'ready', error: undefined, rows: { length: 70 } })
  })
})
