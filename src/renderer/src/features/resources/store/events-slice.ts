import type { ResourceEventView } from '@shared/ipc'
import type { StateCreator } from 'zustand'
import { noEventFilters, type EventFilters } from '../lib/event-filter'
import type { ResourcesClient } from './client'
import type { ResourcesState } from './resources-state'

/** How many events the stream keeps in memory (the audit log keeps them all). */
export const eventStreamLimit = 500

/** The event stream: newest first, with filters and a pause that holds new events aside. */
export type EventsSlice = {
  events: ResourceEventView[]
  eventsStatus: 'idle' | 'loading' | 'ready' | 'error'
  eventsError?: string
  paused: boolean
  /** Events that arrived while paused, newest first; shown on resume. */
  held: ResourceEventView[]
  filters: EventFilters
  loadEvents(): Promise<void>
  receive(event: ResourceEventView): void
  setPaused(paused: boolean): void
  setFilters(filters: Partial<EventFilters>): void
}

/** The events slice; the first page comes from the audit log, the rest is pushed by main. */
export const createEventsSlice =
  (client: ResourcesClient): StateCreator<ResourcesState, [], [], EventsSlice> =>
  (set, get) => ({
    events: [],
    eventsStatus: 'idle',
    paused: false,
    held: [],
    filters: noEventFilters,
    async loadEvents() {
      set({ eventsStatus: 'loading', eventsError: undefined })
      const result = await client.resources.recentEvents({ limit: 200 })
      if (!result.ok) return set({ eventsStatus: 'error', eventsError: result.error.message })
      // Events pushed while the first page was in flight stay on top.
      const pushed = get().events
      const seen = new Set(pushed.map(eventKey))
      set({ events: [...pushed, ...result.value.filter((event) => !seen.has(eventKey(event)))].slice(0, eventStreamLimit), eventsStatus: 'ready' })
    },
    receive(event) {
      if (get().paused) set({ held: [event, ...get().held].slice(0, eventStreamLimit) })
      else set({ events: [event, ...get().events].slice(0, eventStreamLimit) })
    },
    setPaused(paused) {
      if (paused) return set({ paused: true })
      set({ paused: false, events: [...get().held, ...get().events].slice(0, eventStreamLimit), held: [] })
    },
    setFilters(filters) {
      set({ filters: { ...get().filters, ...filters } })
    }
  })

function eventKey(event: ResourceEventView): string {
  return `${event.at}|${event.type}|${JSON.stringify(event.payload)}`
}
