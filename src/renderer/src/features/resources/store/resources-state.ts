import { create } from 'zustand'
import { on, type HostFeed } from '../../../lib/follow-host'
import type { ResourcesClient } from './client'
import { createEventsSlice, type EventsSlice } from './events-slice'
import { createHandlesSlice, type HandlesSlice } from './handles-slice'

/** The resources feature's state: live handles and the event stream. */
export type ResourcesState = HandlesSlice & EventsSlice

/** Builds the resources store from its slices over a client of the contract. */
export function createResourcesStore(client: ResourcesClient) {
  return create<ResourcesState>()((...a) => ({ ...createHandlesSlice(client)(...a), ...createEventsSlice(client)(...a) }))
}

/**
 * How the resources store follows main: events stream in as pushed, the handles are read again on
 * `resources.changed` and, once listed, after a reconnect or another process's writes.
 */
export function resourcesFeed(client: ResourcesClient): HostFeed<ResourcesState> {
  return {
    events: [on(client.resources.onEvent, (state, event) => state.receive(event)), on(client.resources.onChanged, (state) => void state.refreshHandles())],
    reload(state) {
      if (state.handlesStatus !== 'idle') void state.refreshHandles()
    }
  }
}
