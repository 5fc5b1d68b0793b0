import type { HistoryDetail, HistoryStatus, HistoryVerification } from '@shared/ipc/history'
import { create } from 'zustand'
import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import { airlock, unwrap } from '../../../lib/airlock-client'
import { appendPage, listInputOf, mergeFirstPage, noFilters, withStatus, type HistoryFilters, type LoadedRows } from '../lib/history-selectors'

/** How long a burst of `history.changed` events is gathered before the first page is fetched again. */
export const refreshCoalesceMs = 150

/** The history feature: loaded pages under the current filters, the open call's detail, and the chain check. */
export type HistoryState = LoadedRows & {
  filters: HistoryFilters
  status: 'idle' | 'loading' | 'ready' | 'error'
  error?: string
  loadingMore: boolean
  /** Registered agent ids, for the agent filter. */
  agentIds: string[]
  selectedId?: string
  detail?: HistoryDetail
  detailStatus: 'idle' | 'loading' | 'ready' | 'error'
  detailError?: string
  verification?: HistoryVerification
  verifying: boolean
  verifyError?: string
  load(): Promise<void>
  setFilters(patch: Partial<HistoryFilters>): Promise<void>
  loadMore(): Promise<void>
  /** A call began or ended: its loaded row's status now, the first page (coalesced) and the open detail soon. */
  receive(change: { id: string; status: HistoryStatus }): void
  refreshFirstPage(): Promise<void>
  select(id: string): Promise<void>
  closeDetail(): void
  verify(): Promise<void>
}

/** Bumped whenever the filters change, so answers for older filters are dropped. */
let generation = 0
let refreshTimer: ReturnType<typeof setTimeout> | undefined
let detailAgain = false

/** The history store; main owns the rows and says when one changed (`history.changed`). */
export const useHistoryStore = create<HistoryState>((set, get) => ({
  rows: [],
  filters: noFilters,
  status: 'idle',
  loadingMore: false,
  agentIds: [],
  detailStatus: 'idle',
  verifying: false,
  async load() {
    const mine = ++generation
    set({ status: 'loading', error: undefined })
    void refreshAgentIds()
    try {
      const page = await unwrap(airlock.history.list(listInputOf(get().filters)))
      if (mine === generation) set({ rows: page.rows, nextCursor: page.nextCursor, status: 'ready' })
    } catch (error) {
      if (mine === generation) set({ status: 'error', error: (error as Error).message })
    }
  },
  setFilters(patch) {
    set({ filters: { ...get().filters, ...patch } })
    return get().load()
  },
  async loadMore() {
    const { nextCursor, loadingMore } = get()
    if (nextCursor === undefined || loadingMore) return
    const mine = generation
    set({ loadingMore: true })
    try {
      const page = await unwrap(airlock.history.list(listInputOf(get().filters, nextCursor)))
      if (mine === generation) set(appendPage(get(), page))
    } catch (error) {
      if (mine === generation) set({ error: (error as Error).message })
    } finally {
      set({ loadingMore: false })
    }
  },
  receive(change) {
    const state = get()
    if (state.status === 'idle') return
    const rows = withStatus(state.rows, change)
    if (rows !== state.rows) set({ rows })
    if (state.selectedId === change.id) detailAgain = true
    refreshTimer ??= setTimeout(() => {
      refreshTimer = undefined
      void get().refreshFirstPage()
    }, refreshCoalesceMs)
  },
  refreshFirstPage: coalescedRefresh(async () => {
    const mine = generation
    const result = await airlock.history.list(listInputOf(get().filters))
    if (result.ok && mine === generation) set({ ...mergeFirstPage(get(), result.value), status: 'ready' })
    const selectedId = get().selectedId
    if (detailAgain && selectedId) {
      detailAgain = false
      const detail = await airlock.history.detail({ id: selectedId })
      if (detail.ok && get().selectedId === selectedId) set({ detail: detail.value, detailStatus: 'ready' })
    }
  }),
  async select(id) {
    set({ selectedId: id, detailStatus: 'loading', detailError: undefined, detail: get().detail?.id === id ? get().detail : undefined })
    try {
      const detail = await unwrap(airlock.history.detail({ id }))
      if (get().selectedId === id) set({ detail, detailStatus: 'ready' })
    } catch (error) {
      if (get().selectedId === id) set({ detailStatus: 'error', detailError: (error as Error).message })
    }
  },
  closeDetail() {
    set({ selectedId: undefined, detail: undefined, detailStatus: 'idle', detailError: undefined })
  },
  async verify() {
    set({ verifying: true, verifyError: undefined })
    try {
      set({ verification: await unwrap(airlock.history.verify()) })
    } catch (error) {
      set({ verification: undefined, verifyError: (error as Error).message })
    } finally {
      set({ verifying: false })
    }
  }
}))

async function refreshAgentIds(): Promise<void> {
  const result = await airlock.agents.list()
  if (result.ok) useHistoryStore.setState({ agentIds: result.value.map((agent) => agent.id) })
}

airlock.history.onChanged((change) => useHistoryStore.getState().receive(change))
airlock.agents.onChanged(() => {
  if (useHistoryStore.getState().status !== 'idle') void refreshAgentIds()
})
