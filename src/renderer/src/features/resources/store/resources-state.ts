import { create } from 'zustand'
import type { ResourcesClient } from './client'
import { createEventsSlice, type EventsSlice } from './events-slice'
import { createHandlesSlice, type HandlesSlice } from './handles-slice'

/** The resources feature's state: live handles and the event stream. */
export type ResourcesState = HandlesSlice & EventsSlice

/** Builds the resources store from its slices over a client of the contract. */
export function createResourcesStore(client: ResourcesClient) {
  return create<ResourcesState>()((...a) => ({ ...createHandlesSlice(client)(...a), ...createEventsSlice(client)(...a) }))
}
