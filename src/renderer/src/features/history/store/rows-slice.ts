import type { HistoryStatus } from '@shared/ipc/history'
import type { AppError } from '@shared/result'
import type { StateCreator } from 'zustand'
import { appErrorOf, unwrap } from '../../../lib/call-result'
import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import { filterInputOf, listInputOf, noFilters, sameFilters, type HistoryFilters } from '../lib/filters'
import { nothingSeen, withSeen, type SeenValues } from '../lib/options'
import { appendPage, mergeFirstPage, withStatus, type LoadedRows } from '../lib/rows'
import type { HistoryClient } from './client'
import type { HistoryState } from './history-state'

/** How long a burst of `history.changed` events is gathered before the first page is fetched again. */
export const liveCoalesceMs = 150

/** The loaded rows under the current filters, their count, and the live refresh. */
export type RowsSlice = LoadedRows & {
  filters: HistoryFilters
  /** `loading` until the first page under the current filters answered. */
  status: 'idle' | 'loading' | 'ready' | 'error'
  error?: AppError
  /** Bumped each time a first page under new filters arrives (the table scrolls back to the top). */
  resultId: number
  loadingMore: boolean
  moreError?: AppError
  /** How many calls match the filters (`history.count`), once it answered. */
  count?: number
  countError?: AppError
  /** Registered agents and providers, for the filter menus. */
  agentIds: string[]
  providerIds: string[]
  /** Agents, tools and providers seen in any page returned (the filter menus offer them whatever the current filters). */
  seen: SeenValues
  /** Loads the first page and the count under the current filters. */
  load(): Promise<void>
  /** Changes filters (and loads) unless they ask the same as now. */
  setFilters(patch: Partial<HistoryFilters>): Promise<void>
  /** Loads the page after the loaded rows, once at a time. */
  loadMore(): Promise<void>
  /** A call began or ended: its loaded row's status now, the first page and count (coalesced) soon. */
  receive(change: { id: string; status: HistoryStatus }): void
  /** Fetches the first page again and lays it over the loaded rows; refreshes the count. */
  refreshTop(): Promise<void>
  /** Re-reads the registered agents and providers for the filter menus. */
  refreshOptions(): Promise<void>
}

/** Rows, filters, count and the live refresh of the History view (cursor paging over `history.list`). */
export const createRowsSlice =
  (client: HistoryClient): StateCreator<HistoryState, [], [], RowsSlice> =>
  (set, get) => {
    // Bumped whenever the filters change, so answers for older filters are dropped.
    let generation = 0
    let liveTimer: ReturnType<typeof setTimeout> | undefined

    const refreshCount = async (mine: number) => {
      const answer = await client.history.count(filterInputOf(get().filters))
      if (mine !== generation) return
      if (answer.ok) set({ count: answer.value.count, countError: undefined })
      else set({ countError: answer.error })
    }

    return {
      rows: [],
      filters: noFilters,
      status: 'idle',
      resultId: 0,
      loadingMore: false,
      agentIds: [],
      providerIds: [],
      seen: nothingSeen,
      async load() {
        const mine = ++generation
        set({ status: 'loading', error: undefined, moreError: undefined, count: undefined, countError: undefined })
        const counting = refreshCount(mine)
        try {
          const page = await unwrap(client.history.list(listInputOf(get().filters)))
          if (mine === generation)
            set({ rows: page.rows, nextCursor: page.nextCursor, status: 'ready', resultId: get().resultId + 1, seen: withSeen(get().seen, page.rows) })
        } catch (error) {
          if (mine === generation) set({ status: 'error', error: appErrorOf(error), rows: [], nextCursor: undefined })
        }
        await counting
      },
      setFilters(patch) {
        const filters = { ...get().filters, ...patch }
        if (sameFilters(filters, get().filters) && get().status !== 'idle') {
          set({ filters })
          return Promise.resolve()
        }
        set({ filters })
        return get().load()
      },
      async loadMore() {
        const { nextCursor, loadingMore, status } = get()
        if (nextCursor === undefined || loadingMore || status !== 'ready') return
        const mine = generation
        set({ loadingMore: true, moreError: undefined })
        try {
          const page = await unwrap(client.history.list(listInputOf(get().filters, nextCursor)))
          if (mine === generation) set({ ...appendPage(get(), page), seen: withSeen(get().seen, page.rows) })
        } catch (error) {
          if (mine === generation) set({ moreError: appErrorOf(error) })
        } finally {
          if (mine === generation) set({ loadingMore: false })
        }
      },
      receive(change) {
        const state = get()
        if (state.status === 'idle') return
        const rows = withStatus(state.rows, change)
        if (rows !== state.rows) set({ rows })
        if (state.selectedId === change.id) void state.refreshDetail()
        liveTimer ??= setTimeout(() => {
          liveTimer = undefined
          void get().refreshTop()
        }, liveCoalesceMs)
      },
      refreshTop: coalescedRefresh(async () => {
        const mine = generation
        if (get().status !== 'ready') return
        const counting = refreshCount(mine)
        const answer = await client.history.list(listInputOf(get().filters))
        if (answer.ok && mine === generation) set({ ...mergeFirstPage(get(), answer.value), seen: withSeen(get().seen, answer.value.rows) })
        await counting
      }),
      async refreshOptions() {
        const [agents, providers] = await Promise.all([client.agents.list(), client.providers.list()])
        set({
          ...(agents.ok ? { agentIds: agents.value.map((agent) => agent.id) } : {}),
          ...(providers.ok ? { providerIds: providers.value.providers.map((provider) => provider.providerId) } : {})
        })
      }
    }
  }
