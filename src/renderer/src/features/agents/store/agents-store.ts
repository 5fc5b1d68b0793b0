import type { AgentView } from '@shared/agents'
import { create } from 'zustand'
import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import { airlock, unwrap } from '../../../lib/airlock-client'

/** A token main returned for a new agent: shown once, kept only until the operator dismisses it. */
export type IssuedToken = { agentId: string; token: string; workspace: string }

/** The agents feature: the registered agents from main, the create form's state and the one-time token. */
export type AgentsState = {
  agents: AgentView[]
  status: 'idle' | 'loading' | 'ready' | 'error'
  error?: string
  creating: boolean
  createError?: string
  /** The token of the agent just created, until dismissed; never fetched again. */
  issued?: IssuedToken
  /** Agents with a toggle or removal in flight (their buttons wait). */
  busy: Record<string, boolean>
  load(): Promise<void>
  refresh(): Promise<void>
  create(input: { agentId: string; name?: string }): Promise<boolean>
  dismissToken(): void
  setEnabled(agentId: string, enabled: boolean): Promise<void>
  remove(agentId: string): Promise<void>
  clearError(): void
}


/** The agents store; main owns the list and says when it changed (`agents.changed`). */
export const useAgentsStore = create<AgentsState>((set, get) => {
  const withBusy = async (agentId: string, work: () => Promise<void>) => {
    set({ busy: { ...get().busy, [agentId]: true }, error: undefined })
    try {
      await work()
    } catch (error) {
      set({ error: (error as Error).message })
    } finally {
      const { [agentId]: _done, ...rest } = get().busy
      set({ busy: rest })
    }
    await get().refresh()
  }
  return {
    agents: [],
    status: 'idle',
    creating: false,
    busy: {},
    async load() {
      set({ status: 'loading', error: undefined })
      try {
        set({ agents: await unwrap(airlock.agents.list()), status: 'ready' })
      } catch (error) {
        set({ status: 'error', error: (error as Error).message })
      }
    },
    // Bursts of changes (a role edit touches many agents) coalesce into one call in flight plus one after it.
    refresh: coalescedRefresh(async () => {
      const result = await airlock.agents.list()
      if (result.ok) set({ agents: result.value, status: 'ready' })
    }),
    async create(input) {
      set({ creating: true, createError: undefined, issued: undefined })
      try {
        const created = await unwrap(airlock.agents.create(input))
        set({ issued: { agentId: created.agent.id, token: created.token, workspace: created.workspace } })
        await get().refresh()
        return true
      } catch (error) {
        set({ createError: (error as Error).message })
        return false
      } finally {
        set({ creating: false })
      }
    },
    dismissToken() {
      set({ issued: undefined })
    },
    setEnabled(agentId, enabled) {
      return withBusy(agentId, async () => {
        await unwrap(airlock.agents.setEnabled({ agentId, enabled }))
      })
    },
    remove(agentId) {
      return withBusy(agentId, async () => {
        await unwrap(airlock.agents.remove({ agentId }))
        if (get().issued?.agentId === agentId) set({ issued: undefined })
      })
    },
    clearError() {
      set({ error: undefined })
    }
  }
})

airlock.agents.onChanged(() => {
  if (useAgentsStore.getState().status !== 'idle') void useAgentsStore.getState().refresh()
})
