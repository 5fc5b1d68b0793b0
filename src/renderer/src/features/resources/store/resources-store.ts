import type { ResourceEventView } from '@shared/ipc'
import type { ResourceHandleView } from '@shared/resources'
import { create } from 'zustand'
import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import { airlock, unwrap } from '../../../lib/airlock-client'

/** How many events the stream keeps in memory (the audit log keeps them all). */
export const eventStreamLimit = 200

/** The resources feature: live handles from main and the event stream. */
export type ResourcesState = {
  handles: ResourceHandleView[]
  events: ResourceEventView[]
  status: 'idle' | 'loading' | 'ready' | 'error'
  error?: string
  /** The last health verdict per handle, from the operator's "Check". */
  health: Record<string, string>
  load(): Promise<void>
  refreshHandles(): Promise<void>
  release(handleId: string): Promise<void>
  checkHealth(handleId: string): Promise<void>
  receive(event: ResourceEventView): void
}


/** The resources store; appends pushed events and refreshes the handle list when main says a handle changed. */
export const useResourcesStore = create<ResourcesState>((set, get) => ({
  handles: [],
  events: [],
  status: 'idle',
  health: {},
  async load() {
    set({ status: 'loading', error: undefined })
    try {
      const [handles, events] = await Promise.all([unwrap(airlock.resources.list()), unwrap(airlock.resources.recentEvents({ limit: 100 }))])
      set({ handles, events, status: 'ready' })
    } catch (error) {
      set({ status: 'error', error: (error as Error).message })
    }
  },
  // Bursts of changes (many holders at once) coalesce into one call in flight plus one after it.
  refreshHandles: coalescedRefresh(async () => {
    const result = await airlock.resources.list()
    if (result.ok) set({ handles: result.value })
  }),
  async release(handleId) {
    const result = await airlock.resources.release({ handleId })
    if (!result.ok) set({ error: result.error.message })
    await get().refreshHandles()
  },
  async checkHealth(handleId) {
    const result = await airlock.resources.checkHealth({ handleId })
    set({ health: { ...get().health, [handleId]: result.ok ? result.value.status : result.error.message } })
  },
  receive(event) {
    set({ events: [event, ...get().events].slice(0, eventStreamLimit) })
  }
}))

airlock.resources.onEvent((event) => useResourcesStore.getState().receive(event))
airlock.resources.onChanged(() => void useResourcesStore.getState().refreshHandles())
