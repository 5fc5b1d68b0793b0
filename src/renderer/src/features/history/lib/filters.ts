import { historyStatuses, type HistoryListInput, type HistoryStatus } from '@shared/ipc/history'

/** The History view's filters as the operator set them; empty means "any". Times are ISO (UTC). */
export type HistoryFilters = {
  agentId: string
  tool: string
  status: HistoryStatus | ''
  providerId: string
  since: string
  until: string
  text: string
}

/** No filter set. */
export const noFilters: HistoryFilters = { agentId: '', tool: '', status: '', providerId: '', since: '', until: '', text: '' }

/** Rows the first page asks for: enough to fill a tall screen, small enough to paint at once. */
export const firstPageSize = 200

/** Rows every further page asks for (the contract's most). */
export const nextPageSize = 500

/** The filter part of a `history.list`/`history.count` input: blank filters left out, text trimmed. */
export function filterInputOf(filters: HistoryFilters): Omit<HistoryListInput, 'cursor' | 'limit'> {
  const text = filters.text.trim().slice(0, 200)
  const tool = filters.tool.trim()
  return {
    ...(filters.agentId ? { agentId: filters.agentId } : {}),
    ...(tool ? { tool } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.providerId ? { providerId: filters.providerId } : {}),
    ...(filters.since ? { since: filters.since } : {}),
    ...(filters.until ? { until: filters.until } : {}),
    ...(text ? { text } : {})
  }
}

/** The `history.list` input for the filters, a page after `cursor` (or the first page). */
export function listInputOf(filters: HistoryFilters, cursor?: number, limit = cursor === undefined ? firstPageSize : nextPageSize): HistoryListInput {
  return { ...filterInputOf(filters), ...(cursor !== undefined ? { cursor } : {}), limit }
}

/** Whether any filter is set. */
export function hasFilters(filters: HistoryFilters): boolean {
  return Object.keys(filterInputOf(filters)).length > 0
}

/** Whether two sets of filters ask the same question. */
export function sameFilters(a: HistoryFilters, b: HistoryFilters): boolean {
  return JSON.stringify(filterInputOf(a)) === JSON.stringify(filterInputOf(b))
}

/** The URL query keys of the filters (`#/history?agent=&tool=&status=&provider=&since=&until=&q=&id=`). */
const queryKeys: [keyof HistoryFilters, string][] = [
  ['agentId', 'agent'],
  ['tool', 'tool'],
  ['status', 'status'],
  ['providerId', 'provider'],
  ['since', 'since'],
  ['until', 'until'],
  ['text', 'q']
]

/** What the URL holds for the view: filters and the open call. */
export type HistoryUrlState = { filters: HistoryFilters; id?: string }

/**
 * Reads the view state from the query part of the hash. Values the host would refuse are dropped
 * (an unknown status, a time that is not a time, over-long text), so a hand-edited link still opens.
 */
export function urlStateOf(query: string): HistoryUrlState {
  const params = new URLSearchParams(query)
  const filters = { ...noFilters }
  for (const [key, name] of queryKeys) {
    const value = (params.get(name) ?? '').trim()
    if (value) filters[key] = value as never
  }
  if (filters.status && !(historyStatuses as readonly string[]).includes(filters.status)) filters.status = ''
  filters.since = isoOrBlank(filters.since)
  filters.until = isoOrBlank(filters.until)
  for (const key of ['agentId', 'tool', 'providerId', 'text'] as const) if (filters[key].length > 200) filters[key] = filters[key].slice(0, 200)
  const id = params.get('id')?.trim()
  return { filters, ...(id && id.length <= 200 ? { id } : {}) }
}

/** The query part of the hash for a view state (blank filters left out, stable key order). */
export function queryOf(state: HistoryUrlState): string {
  const params = new URLSearchParams()
  for (const [key, name] of queryKeys) {
    const value = state.filters[key].trim()
    if (value) params.set(name, value)
  }
  if (state.id) params.set('id', state.id)
  return params.toString()
}

/** A time as the host accepts it (ISO with offset, normalised to UTC), or blank when it is not a time. */
export function isoOrBlank(value: string): string {
  if (!value) return ''
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString()
}

/** The time-range presets of the filter bar, newest window first. */
export const timePresets = [
  { id: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { id: '1h', label: 'Last hour', ms: 3_600_000 },
  { id: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { id: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 }
] as const

/** A preset id, `any` (no time filter) or `custom` (from/to set by hand or by a link). */
export type TimeChoice = (typeof timePresets)[number]['id'] | 'any' | 'custom'

/** The `since`/`until` a time choice sets, relative to `now`; `custom` keeps what is set. */
export function timeRangeOf(choice: TimeChoice, now: number, current: { since: string; until: string }): { since: string; until: string } {
  if (choice === 'any') return { since: '', until: '' }
  if (choice === 'custom') return current
  const preset = timePresets.find((item) => item.id === choice)!
  return { since: new Date(now - preset.ms).toISOString(), until: '' }
}

/** An ISO time as a `datetime-local` input shows it (local time, to the minute), or blank. */
export function localInputOf(iso: string): string {
  const ms = Date.parse(iso)
  if (!iso || Number.isNaN(ms)) return ''
  const date = new Date(ms)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}
