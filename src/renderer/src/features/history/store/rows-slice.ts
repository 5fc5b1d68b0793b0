import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import { filterInputOf, listInputOf, noFilters, sameFilters } from '../lib/filters'
import { nothingSeen, withSeen } from '../lib/options'
import { appendPage, mergeFirstPage, withStatus } from '../lib/rows'
import { messageOf, valueOf } from './deps'
import type { HistorySlice, RowsSlice } from './history-state'

/** How long a burst of `history.changed` events is gathered before the first page is fetched again. */
export const liveCoalesceMs = 150

/** Rows, filters, count and the live refresh of the History view (cursor paging over `history.list`). */
export const rowsSlice: HistorySlice<RowsSlice> = (deps) => (set, get) => {
  // Bumped whenever the filters change, so answers for older filters are dropped.
  let generation = 0
  let liveTimer: ReturnType<typeof setTimeout> | undefined
  const { api } = deps

  const refreshCount = async (mine: number) => {
    const answer = await api.history.count(filterInputOf(get().filters))
    if (mine !== generation) return
    if (answer.ok) set({ count: answer.value.count, countError: undefined })
    else set({ countError: answer.error.message })
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
        const page = await valueOf(api.history.list(listInputOf(get().filters)))
        if (mine === generation) set({ rows: page.rows, nextCursor: page.nextCursor, status: 'ready', resultId: get().resultId + 1, seen: withSeen(get().seen, page.rows) })
      } catch (error) {
        if (mine === generation) set({ status: 'error', error: messageOf(error), rows: [], nextCursor: undefined })
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
        const page = await valueOf(api.history.list(listInputOf(get().filters, nextCursor)))
        if (mine === generation) set({ ...appendPage(get(), page), seen: withSeen(get().seen, page.rows) })
      } catch (error) {
        if (mine === generation) set({ moreError: messageOf(error) })
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
      const answer = await api.history.list(listInputOf(get().filters))
      if (answer.ok && mine === generation) set({ ...mergeFirstPage(get(), answer.value), seen: withSeen(get().seen, answer.value.rows) })
      await counting
    }),
    async refreshOptions() {
      const [agents, providers] = await Promise.all([api.agents.list(), api.providers.list()])
      set({
        ...(agents.ok ? { agentIds: agents.value.map((agent) => agent.id) } : {}),
        ...(providers.ok ? { providerIds: providers.value.providers.map((provider) => provider.providerId) } : {})
      })
    }
  }
}
