import { create } from 'zustand'
import { airlock, onStale } from '../../../lib/airlock-client'
import { createDetailSlice, type DetailSlice } from './detail-slice'
import { createListSlice, type ListSlice } from './list-slice'
import { createProfileSlice, type ProfileSlice } from './profile-slice'
import { createTimelineSlice, type TimelineSlice } from './timeline-slice'
import { createWorkspaceSlice, type WorkspaceSlice } from './workspace-slice'

export type { IssuedToken } from './profile-slice'
export type { Loadable } from './detail-slice'

/** The Agents feature's state: the list, the profile editor and token, the selected agent's pane and its workspace. */
export type AgentsState = ListSlice & ProfileSlice & DetailSlice & WorkspaceSlice & TimelineSlice

/** The agents store; main owns every fact in it and says when one changed (events below). */
export const useAgentsStore = create<AgentsState>()((...a) => ({
  ...createListSlice(...a),
  ...createProfileSlice(...a),
  ...createDetailSlice(...a),
  ...createWorkspaceSlice(...a),
  ...createTimelineSlice(...a)
}))

/** The timeline is read again when it is the open tab's (a call, a session or a checkpoint of the selected agent changed). */
const timelineShown = () => {
  const { timeline, selectedId } = useAgentsStore.getState()
  return timeline.status !== 'idle' && timeline.agentId === selectedId
}

const active = () => useAgentsStore.getState().status !== 'idle'

airlock.agents.onChanged((event) => {
  if (!active()) return
  const state = useAgentsStore.getState()
  void state.refreshAgents()
  const selected = state.selectedId
  if (!selected) return
  const touches = 'agentId' in event ? event.agentId === selected : event.agentIds.includes(selected)
  if (touches && !('agentId' in event && event.change === 'removed')) void state.refreshDetail()
})

airlock.settings.onChanged((view) => {
  if (active() && view.key === 'code_execution.providers') void useAgentsStore.getState().refreshOperatorOrder()
})

airlock.sessions.onChanged((event) => {
  if (!active()) return
  const state = useAgentsStore.getState()
  void state.refreshSessions()
  if (event.agentId === state.selectedId) void state.refreshSessionsOfSelected()
  if (event.agentId === state.selectedId && timelineShown()) void state.refreshTimeline()
})

airlock.checkpoints.onChanged((event) => {
  if (active() && timelineShown() && event.agentId === useAgentsStore.getState().selectedId) void useAgentsStore.getState().refreshTimeline()
})

airlock.approvals.onChanged(() => {
  if (active()) void useAgentsStore.getState().refreshPending()
})

// A call began or ended: last activity moves, and the selected agent's calls and usage may have
// changed (the event does not say whose call it was); its files too, when the call was its own.
airlock.history.onChanged((event) => {
  if (!active()) return
  const state = useAgentsStore.getState()
  void state.refreshLastCalls()
  if (!state.selectedId) return
  if (timelineShown()) void state.refreshTimeline()
  void state.refreshCalls().then(() => {
    const now = useAgentsStore.getState()
    if (event.status !== 'running' && now.recentCalls.value?.rows.some((row) => row.id === event.id)) void now.refreshWorkspace()
  })
})

// After a reconnect or another process's writes (an agent made with the CLI): read it all again.
onStale(() => {
  if (!active()) return
  const state = useAgentsStore.getState()
  void Promise.all([state.refreshAgents(), state.refreshSessions(), state.refreshPending(), state.refreshOperatorOrder(), state.refreshLastCalls()])
  if (state.selectedId) void state.refreshDetail()
  if (timelineShown()) void state.refreshTimeline()
})
