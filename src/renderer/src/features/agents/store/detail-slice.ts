import type { SessionView } from '@shared/agents'
import type { AgentConnection, AgentDetail } from '@shared/ipc/agents'
import type { HistoryRow, HistoryUsage } from '@shared/ipc/history'
import type { AppError, Result } from '@shared/result'
import type { StateCreator } from 'zustand'
import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import { usageSince, type UsageRangeId } from '../lib/usage'
import type { AgentsState } from './agents-state'
import type { AgentsClient } from './client'

/** One answer the detail pane waits for: not asked yet, on its way, the host's value, or the host's error. */
export type Loadable<T> = { status: 'idle' | 'loading' | 'ready' | 'error'; value?: T; error?: AppError }

/** How many recent calls the overview lists. */
export const recentCallsLimit = 8

/** The selected agent: its effective profile, connection snippets, sessions, recent calls and usage. */
export type DetailSlice = {
  selectedId?: string
  detail: Loadable<AgentDetail>
  connection: Loadable<AgentConnection>
  agentSessions: Loadable<SessionView[]>
  recentCalls: Loadable<{ rows: HistoryRow[]; total: number }>
  usageRange: UsageRangeId
  usage: Loadable<HistoryUsage>
  /** Selects an agent (or none) and loads what its pane shows. */
  select(agentId: string | undefined): void
  refreshDetail(): Promise<void>
  refreshSessionsOfSelected(): Promise<void>
  refreshCalls(): Promise<void>
  setUsageRange(range: UsageRangeId): void
}

const idle = { status: 'idle' } as const

/** Builds the detail slice; an answer for an agent no longer selected is dropped. */
export const createDetailSlice =
  (client: AgentsClient): StateCreator<AgentsState, [], [], DetailSlice> =>
  (set, get) => {
    // Loads one piece for the selected agent into `key`; keeps the last value while a refresh runs.
    const loadInto = async <K extends 'detail' | 'connection' | 'agentSessions' | 'recentCalls' | 'usage'>(
      key: K,
      fetch: (agentId: string) => Promise<Result<NonNullable<AgentsState[K]['value']>>>
    ) => {
      const agentId = get().selectedId
      if (!agentId) return
      set({ [key]: { ...get()[key], status: get()[key].value ? 'ready' : 'loading' } } as Partial<AgentsState>)
      const result = await fetch(agentId)
      if (get().selectedId !== agentId) return
      set({
        [key]: result.ok ? { status: 'ready', value: result.value } : { status: 'error', value: get()[key].value, error: result.error }
      } as Partial<AgentsState>)
    }
    const calls = coalescedRefresh(async () => {
      await Promise.all([
        loadInto('recentCalls', async (agentId) => {
          const [page, count] = await Promise.all([client.history.list({ agentId, limit: recentCallsLimit }), client.history.count({ agentId })])
          if (!page.ok) return page
          return { ok: true, value: { rows: page.value.rows, total: count.ok ? count.value.count : page.value.rows.length } }
        }),
        loadInto('usage', (agentId) => client.history.usage({ agentId, since: usageSince(get().usageRange, Date.now()) }))
      ])
    })
    return {
      selectedId: undefined,
      detail: idle,
      connection: idle,
      agentSessions: idle,
      recentCalls: idle,
      usageRange: '24h',
      usage: idle,
      select(agentId) {
        if (agentId === get().selectedId) return
        set({ selectedId: agentId, detail: idle, connection: idle, agentSessions: idle, recentCalls: idle, usage: idle })
        get().resetWorkspace()
        if (!agentId) return
        void get().refreshDetail()
        void loadInto('connection', (id) => client.agents.connection({ agentId: id }))
        void get().refreshSessionsOfSelected()
        void get().refreshCalls()
      },
      refreshDetail: coalescedRefresh(() => loadInto('detail', (agentId) => client.agents.get({ agentId }))),
      refreshSessionsOfSelected: coalescedRefresh(() => loadInto('agentSessions', (agentId) => client.agents.sessions({ agentId, limit: 50 }))),
      refreshCalls: calls,
      setUsageRange(range) {
        // The last chart stays while the new window loads (no flash of an empty card).
        set({ usageRange: range, usage: { ...get().usage, status: 'loading' } })
        void loadInto('usage', (agentId) => client.history.usage({ agentId, since: usageSince(range, Date.now()) }))
      }
    }
  }
