import type { ResourceEventView } from '@shared/ipc'
import { resourceEventTypes } from '@shared/resources'

/** The event stream's filters: a type prefix (`execution_resource.`, `policy.approval.denied`) and free text. */
export type EventFilters = { type: string; text: string }

/** No filter. */
export const noEventFilters: EventFilters = { type: '', text: '' }

/** The type filter's choices: each family prefix, then every exact type known or seen, sorted. */
export function typeFilterOptions(events: readonly ResourceEventView[]): { value: string; label: string }[] {
  const types = [...new Set([...resourceEventTypes, ...events.map((event) => event.type)])].sort()
  const families = [...new Set(types.map((type) => type.slice(0, type.lastIndexOf('.') + 1)).filter(Boolean))].sort()
  return [
    { value: '', label: 'All events' },
    ...families.map((family) => ({ value: family, label: `${family}*` })),
    ...types.map((type) => ({ value: type, label: type }))
  ]
}

/** Whether an event passes the filters: its type starts with the prefix and the text occurs in its type or payload. */
export function eventMatches(event: ResourceEventView, filters: EventFilters): boolean {
  if (filters.type && !event.type.startsWith(filters.type)) return false
  const needle = filters.text.trim().toLowerCase()
  if (!needle) return true
  if (event.type.toLowerCase().includes(needle)) return true
  return Object.values(event.payload).some(
    (value) =>
      value !== null &&
      value !== undefined &&
      String(typeof value === 'object' ? JSON.stringify(value) : value)
        .toLowerCase()
        .includes(needle)
  )
}

/** The events that pass the filters, in the order given (newest first). */
export function filterEvents(events: readonly ResourceEventView[], filters: EventFilters): ResourceEventView[] {
  if (!filters.type && !filters.text.trim()) return [...events]
  return events.filter((event) => eventMatches(event, filters))
}

/** Reads the filters from the hash query (`#/resources?type=…&q=…`). */
export function filtersFromHash(hash: string): EventFilters {
  const params = new URLSearchParams(hash.split('?')[1] ?? '')
  return { type: params.get('type') ?? '', text: params.get('q') ?? '' }
}

/** Writes the filters into the view's hash, keeping any other query keys. */
export function hashWithFilters(hash: string, filters: EventFilters): string {
  const [path, query] = hash.split('?')
  const params = new URLSearchParams(query ?? '')
  for (const [key, value] of [
    ['type', filters.type],
    ['q', filters.text]
  ] as const) {
    if (value) params.set(key, value)
    else params.delete(key)
  }
  const rest = params.toString()
  return rest ? `${path}?${rest}` : (path ?? '')
}

/** The tone of an event type for its badge: failures bad, readiness ok, approvals asked warn. */
export function eventTone(type: string): 'ok' | 'bad' | 'warn' | 'info' | 'neutral' {
  if (/\.(failed|unhealthy|denied)$/.test(type)) return 'bad'
  if (/\.(ready|approved)$/.test(type)) return 'ok'
  if (/\.(approval_required|requested|pending)$/.test(type)) return 'warn'
  if (/\.(released|releasing)$/.test(type)) return 'neutral'
  return 'info'
}
