import { create } from 'zustand'
import { on, type HostFeed } from '../../../lib/follow-host'
import type { AgentsClient } from './client'
import { createDetailSlice, type DetailSlice } from './detail-slice'
import { createListSlice, operatorOrderKey, type ListSlice } from './list-slice'
import { createProfileSlice, type ProfileSlice } from './profile-slice'
import { createTimelineSlice, type TimelineSlice } from './timeline-slice'
import { createWorkspaceSlice, type WorkspaceSlice } from './workspace-slice'

/** The Agents feature's state: the list, the profile editor and token, the selected agent's pane and its workspace. */
export type AgentsState = ListSlice & ProfileSlice & DetailSlice & WorkspaceSlice & TimelineSlice

/** Builds the agents store from its slices over a client of the contract. */
export function createAgentsStore(client: AgentsClient) {
  return create<AgentsState>()((...a) => ({
    ...createListSlice(client)(...a),
    ...createProfileSlice(client)(...a),
    ...createDetailSlice(client)(...a),
    ...createWorkspaceSlice(client)(...a),
    ...createTimelineSlice(client)(...a)
  }))
}

/** Whether the view has loaded: until then no event reads anything. */
const active = (state: AgentsState) => state.status !== 'idle'

/** The timeline is read again when it is the open tab's (a call, a session or a checkpoint of the selected agent changed). */
const timelineShown = (state: AgentsState) => state.timeline.status !== 'idle' && state.timeline.agentId === state.selectedId

/**
 * How the agents store follows main, once the view has loaded: each event reads again what it
 * touches (the list, the selected agent's pane, its timeline and workspace), and a reconnect or
 * another process's writes (an agent made with the CLI) read it all again.
 */
export function agentsFeed(client: AgentsClient): HostFeed<AgentsState> {
  return {
    events: [
      on(client.agents.onChanged, (state, event) => {
        if (!active(state)) return
        void state.refreshAgents()
        const selected = state.selectedId
        if (!selected) return
        const touches = 'agentId' in event ? event.agentId === selected : event.agentIds.includes(selected)
        if (touches && !('agentId' in event && event.change === 'removed')) void state.refreshDetail()
      }),
      on(client.settings.onChanged, (state, view) => {
        if (active(state) && view.key === operatorOrderKey) void state.refreshOperatorOrder()
      }),
      on(client.sessions.onChanged, (state, event) => {
        if (!active(state)) return
        void state.refreshSessions()
        if (event.agentId === state.selectedId) void state.refreshSessionsOfSelected()
        if (event.agentId === state.selectedId && timelineShown(state)) void state.refreshTimeline()
      }),
      on(client.checkpoints.onChanged, (state, event) => {
        if (active(state) && timelineShown(state) && event.agentId === state.selectedId) void state.refreshTimeline()
      }),
      on(client.approvals.onChanged, (state) => {
        if (active(state)) void state.refreshPending()
      }),
      // A call began or ended: last activity moves, and the selected agent's calls and usage may have
      // changed (the event does not say whose call it was); its files too, when the call was its own.
      on(client.history.onChanged, (state, event, latest) => {
        if (!active(state)) return
        void state.refreshLastCalls()
        if (!state.selectedId) return
        if (timelineShown(state)) void state.refreshTimeline()
        void state.refreshCalls().then(() => {
          const now = latest()
          if (event.status !== 'running' && now.recentCalls.value?.rows.some((row) => row.id === event.id)) void now.refreshWorkspace()
        })
      })
    ],
    reload(state) {
      if (!active(state)) return
      void Promise.all([state.refreshAgents(), state.refreshSessions(), state.refreshPending(), state.refreshOperatorOrder(), state.refreshLastCalls()])
      if (state.selectedId) void state.refreshDetail()
      if (timelineShown(state)) void state.refreshTimeline()
    }
  }
}
