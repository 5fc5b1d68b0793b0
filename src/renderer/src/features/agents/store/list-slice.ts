import { operatorProviderOrder, type AgentView, type CodeProviderId, type RoleView } from '@shared/agents'
import type { ApprovalView, SessionView } from '@shared/approvals'
import type { AppError } from '@shared/result'
import type { StateCreator } from 'zustand'
import { appErrorOf, unwrap } from '../../../lib/call-result'
import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import { mergeLastCalls } from '../lib/agent-selectors'
import type { AgentsState } from './agents-state'
import type { AgentsClient } from './client'

/** The setting that holds the operator's provider order (SPEC §3.3). */
export const operatorOrderKey = 'code_execution.providers' as const

/** The list: the agents, their roles, sessions, pending queue items and last calls, all from the host. */
export type ListSlice = {
  agents: AgentView[]
  roles: RoleView[]
  /** Open sessions and the most recent ended ones (for connected counts, taint and last activity). */
  sessions: SessionView[]
  /** The pending queue (only who asked matters here). */
  pending: Pick<ApprovalView, 'id' | 'agentId'>[]
  /** The start of each agent's newest recorded call. */
  lastCalls: Record<string, string>
  /** The operator's provider order (setting `code_execution.providers`): what an agent that names none follows. */
  operatorOrder?: CodeProviderId[]
  status: 'idle' | 'loading' | 'ready' | 'error'
  /** The host's error for the last load or action that failed (shown until cleared). */
  error?: AppError
  /** Agents with a toggle or removal in flight (their controls wait). */
  busy: Record<string, boolean>
  load(): Promise<void>
  refreshAgents(): Promise<void>
  refreshSessions(): Promise<void>
  refreshPending(): Promise<void>
  refreshLastCalls(): Promise<void>
  refreshOperatorOrder(): Promise<void>
  setEnabled(agentId: string, enabled: boolean): Promise<void>
  remove(agentId: string): Promise<boolean>
  clearError(): void
}

async function fetchSessions(client: AgentsClient): Promise<SessionView[]> {
  const [open, recent] = await Promise.all([unwrap(client.sessions.list({ open: true, limit: 1000 })), unwrap(client.sessions.list({ limit: 1000 }))])
  const byId = new Map(recent.map((session) => [session.id, session]))
  for (const session of open) byId.set(session.id, session)
  return [...byId.values()]
}

async function fetchLastCalls(client: AgentsClient, agents: readonly AgentView[]): Promise<Record<string, string>> {
  const pages = await Promise.all(agents.map((agent) => unwrap(client.history.list({ agentId: agent.id, limit: 1 }))))
  return mergeLastCalls(
    {},
    pages.flatMap((page) => page.rows)
  )
}

/** Builds the list slice; every refresh coalesces bursts of change events into one call in flight plus one after. */
export const createListSlice =
  (client: AgentsClient): StateCreator<AgentsState, [], [], ListSlice> =>
  (set, get) => {
    const withBusy = async (agentId: string, work: () => Promise<void>): Promise<boolean> => {
      set({ busy: { ...get().busy, [agentId]: true }, error: undefined })
      let ok = true
      try {
        await work()
      } catch (error) {
        ok = false
        set({ error: appErrorOf(error) })
      } finally {
        const { [agentId]: _done, ...rest } = get().busy
        set({ busy: rest })
      }
      await get().refreshAgents()
      return ok
    }
    return {
      agents: [],
      roles: [],
      sessions: [],
      pending: [],
      lastCalls: {},
      status: 'idle',
      busy: {},
      async load() {
        set({ status: 'loading', error: undefined })
        try {
          const [agents, roles, sessions, pending] = await Promise.all([
            unwrap(client.agents.list()),
            unwrap(client.agents.listRoles()),
            fetchSessions(client),
            unwrap(client.approvals.list({ status: 'pending', limit: 5000 }))
          ])
          set({ agents, roles, sessions, pending, status: 'ready' })
          await get().refreshOperatorOrder()
          set({ lastCalls: await fetchLastCalls(client, agents) })
        } catch (error) {
          set({ status: get().status === 'ready' ? 'ready' : 'error', error: appErrorOf(error) })
        }
      },
      refreshAgents: coalescedRefresh(async () => {
        const [agents, roles] = await Promise.all([client.agents.list(), client.agents.listRoles()])
        if (agents.ok) set({ agents: agents.value, status: 'ready' })
        if (roles.ok) set({ roles: roles.value })
        const missing = agents.ok ? agents.value.filter((agent) => get().lastCalls[agent.id] === undefined) : []
        if (missing.length > 0)
          await fetchLastCalls(client, missing).then(
            (found) => set({ lastCalls: { ...get().lastCalls, ...found } }),
            () => undefined
          )
      }),
      refreshOperatorOrder: coalescedRefresh(async () => {
        const result = await client.settings.get({ key: operatorOrderKey })
        if (result.ok) set({ operatorOrder: operatorProviderOrder(result.value.value as (string | { providerId: string })[]) })
      }),
      refreshSessions: coalescedRefresh(async () => {
        await fetchSessions(client).then(
          (sessions) => set({ sessions }),
          () => undefined
        )
      }),
      refreshPending: coalescedRefresh(async () => {
        const result = await client.approvals.list({ status: 'pending', limit: 5000 })
        if (result.ok) set({ pending: result.value })
      }),
      // A finished call only moves "last activity" forward: the newest page across agents is enough.
      refreshLastCalls: coalescedRefresh(async () => {
        const result = await client.history.list({ limit: 50 })
        if (result.ok) set({ lastCalls: mergeLastCalls(get().lastCalls, result.value.rows) })
      }),
      async setEnabled(agentId, enabled) {
        await withBusy(agentId, async () => {
          await unwrap(client.agents.setEnabled({ agentId, enabled }))
        })
      },
      remove(agentId) {
        return withBusy(agentId, async () => {
          await unwrap(client.agents.remove({ agentId }))
          if (get().issued?.agentId === agentId) set({ issued: undefined })
        })
      },
      clearError() {
        set({ error: undefined })
      }
    }
  }
