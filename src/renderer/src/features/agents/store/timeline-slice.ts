import type { TimelineEntry } from '@shared/ipc/timeline'
import type { StateCreator } from 'zustand'
import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import type { AgentsState } from './agents-state'
import type { AgentsClient } from './client'
import type { Loadable } from './detail-slice'

/** How many entries a page of the timeline holds. */
export const timelinePage = 100

/** The selected agent's timeline: the newest page, and older pages as the operator asks for them. */
export type TimelineSlice = {
  timeline: Loadable<{ entries: TimelineEntry[]; more: boolean }> & { agentId?: string; loadingMore?: boolean }
  /** Loads (or reloads, keeping what is shown) the newest page of the selected agent's timeline. */
  refreshTimeline(): Promise<void>
  /** Appends the page before the oldest entry shown. */
  moreTimeline(): Promise<void>
}

/** Builds the timeline slice; an answer for an agent no longer selected is dropped. */
export const createTimelineSlice =
  (client: AgentsClient): StateCreator<AgentsState, [], [], TimelineSlice> =>
  (set, get) => ({
    timeline: { status: 'idle' },
    // Bursts of change events (every call begins and ends) coalesce into one read after the one in flight.
    refreshTimeline: coalescedRefresh(async () => {
      const agentId = get().selectedId
      if (!agentId) return
      const current = get().timeline
      const shown = current.agentId === agentId ? current : { status: 'loading' as const, agentId }
      set({ timeline: { ...shown, status: shown.value ? shown.status : 'loading' } })
      // A refresh reads as many entries as are shown (at least a page), so older pages stay open.
      const limit = Math.min(200, Math.max(timelinePage, shown.value?.entries.length ?? 0))
      const result = await client.timeline.list({ agentId, limit })
      if (get().selectedId !== agentId) return
      set({ timeline: result.ok ? { status: 'ready', agentId, value: result.value } : { ...get().timeline, status: 'error', error: result.error } })
    }),
    async moreTimeline() {
      const agentId = get().selectedId
      const current = get().timeline
      const last = current.value?.entries.at(-1)
      if (!agentId || current.agentId !== agentId || !last || current.loadingMore) return
      set({ timeline: { ...current, loadingMore: true } })
      const result = await client.timeline.list({ agentId, before: last.at, limit: timelinePage })
      const now = get().timeline
      if (get().selectedId !== agentId || now.agentId !== agentId || !now.value) return
      set({
        timeline: result.ok
          ? { ...now, loadingMore: false, value: { entries: [...now.value.entries, ...result.value.entries], more: result.value.more } }
          : { ...now, loadingMore: false, error: result.error }
      })
    }
  })
