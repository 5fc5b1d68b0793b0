import type { HistoryListInput, HistoryOutput, HistoryRow, HistoryStatus, HistoryVerification } from '@shared/ipc/history'

/** The History view's filters as the operator set them; empty means "any". */
export type HistoryFilters = { agentId: string; tool: string; status: HistoryStatus | ''; text: string }

/** No filter set. */
export const noFilters: HistoryFilters = { agentId: '', tool: '', status: '', text: '' }

/** How many rows one page asks for. */
export const historyPageSize = 100

/** The `history.list` input for the filters (blank ones left out) and an optional cursor. */
export function listInputOf(filters: HistoryFilters, cursor?: number): HistoryListInput {
  const text = filters.text.trim().slice(0, 200)
  return {
    ...(filters.agentId ? { agentId: filters.agentId } : {}),
    ...(filters.tool.trim() ? { tool: filters.tool.trim() } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(text ? { text } : {}),
    ...(cursor !== undefined ? { cursor } : {}),
    limit: historyPageSize
  }
}

/** Whether any filter is set. */
export function hasFilters(filters: HistoryFilters): boolean {
  return filters.agentId !== '' || filters.tool.trim() !== '' || filters.status !== '' || filters.text.trim() !== ''
}

/** Loaded rows plus the cursor of the page after them (absent when the last page is loaded). */
export type LoadedRows = { rows: HistoryRow[]; nextCursor?: number }

/** Appends a further page, dropping rows already loaded (newest first, by seq). */
export function appendPage(loaded: LoadedRows, page: LoadedRows): LoadedRows {
  const lowest = loaded.rows.length > 0 ? loaded.rows[loaded.rows.length - 1]!.seq : Infinity
  return { rows: [...loaded.rows, ...page.rows.filter((row) => row.seq < lowest)], nextCursor: page.nextCursor }
}

/**
 * A fresh first page laid over what is loaded: the fresh rows replace those they cover, older rows
 * loaded by "Load more" stay (with their cursor) when the fresh page reaches down into them. A
 * fresh page that is the whole list replaces it; one that does not reach the loaded rows (more new
 * calls than a page) replaces them too, since the calls between are not loaded.
 */
export function mergeFirstPage(loaded: LoadedRows, fresh: LoadedRows): LoadedRows {
  if (fresh.nextCursor === undefined || fresh.rows.length === 0) return { rows: fresh.rows }
  const lowestFresh = fresh.rows[fresh.rows.length - 1]!.seq
  const highestLoaded = loaded.rows[0]?.seq ?? -Infinity
  const older = loaded.rows.filter((row) => row.seq < lowestFresh)
  if (older.length === 0 || lowestFresh > highestLoaded) return fresh
  return { rows: [...fresh.rows, ...older], nextCursor: loaded.nextCursor }
}

/** A loaded row's status updated from a `history.changed` event (rows older than the first page are not refetched). */
export function withStatus(rows: HistoryRow[], change: { id: string; status: HistoryStatus }): HistoryRow[] {
  const index = rows.findIndex((row) => row.id === change.id)
  if (index === -1 || rows[index]!.status === change.status) return rows
  const next = [...rows]
  next[index] = { ...rows[index]!, status: change.status }
  return next
}

/** Tone of a status badge. */
export type StatusTone = 'ok' | 'bad' | 'warn' | 'info' | 'neutral'

const tones: Record<HistoryStatus, StatusTone> = {
  success: 'ok',
  error: 'bad',
  blocked: 'bad',
  timed_out: 'warn',
  approval_required: 'warn',
  interrupted: 'warn',
  cancelled: 'neutral',
  running: 'info'
}

/** The colour family of a status badge. */
export function statusTone(status: HistoryStatus): StatusTone {
  return tones[status] ?? 'neutral'
}

/** A status as a badge reads: `approval_required` → `approval required`. */
export function statusLabel(status: HistoryStatus): string {
  return status.replace(/_/g, ' ')
}

/** A duration: `850 ms`, `1.4 s`, `2m 05s`, `1h 02m`; a dash when unknown. */
export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '—'
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
  const seconds = Math.round(ms / 1000)
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`
  return `${Math.floor(seconds / 3600)}h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`
}

/** A start time for the table: the local time of day, with the date when it is not today (relative to `now`). */
export function formatStarted(iso: string, now: Date): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  const sameDay = date.getFullYear() === now.getFullYear() && date.getMonth() === now.getMonth() && date.getDate() === now.getDate()
  return sameDay ? timeOfDay(date) : `${calendarDate(date)} ${timeOfDay(date)}`
}

/** A full local timestamp for the detail pane: `2026-01-02 09:05:07`. */
export function formatTimestamp(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : `${calendarDate(date)} ${timeOfDay(date)}`
}

const pad = (n: number) => String(n).padStart(2, '0')
const calendarDate = (date: Date) => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
const timeOfDay = (date: Date) => `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`

/** One line of what a call was asked to do, for the table: its command, path, query or code, else its JSON. */
export function inputPreview(input: unknown, maxLength = 90): string {
  let text: string
  if (input === null || input === undefined) text = ''
  else if (typeof input !== 'object') text = String(input)
  else {
    const record = input as Record<string, unknown>
    const key = ['command', 'path', 'query', 'url', 'sourceCode', 'sql', 'pattern'].find((name) => typeof record[name] === 'string')
    text = key ? (record[key] as string) : JSON.stringify(input)
  }
  const oneLine = text.replace(/\s+/g, ' ').trim()
  return oneLine.length > maxLength ? `${oneLine.slice(0, maxLength - 1)}…` : oneLine
}

/** The input summary as labelled fields: strings as they are (code keeps its lines), anything else as JSON. */
export function inputFields(input: unknown): { key: string; text: string; block: boolean }[] {
  if (input === null || input === undefined) return []
  if (typeof input !== 'object' || Array.isArray(input)) return [{ key: 'input', text: JSON.stringify(input, null, 2), block: true }]
  return Object.entries(input as Record<string, unknown>).map(([key, value]) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2)
    return { key, text, block: text.includes('\n') || text.length > 80 }
  })
}

/** How much of an output the pane renders (the rest stays in the record or its log file). */
export const outputDisplayChars = 256 * 1024

/** An output cut for display, and how many characters were left out. */
export function clipForDisplay(text: string, max = outputDisplayChars): { text: string; omitted: number } {
  return text.length <= max ? { text, omitted: 0 } : { text: text.slice(0, max), omitted: text.length - max }
}

/** What to say under an output stream: where its text is and what is missing from it. */
export function outputNotes(stream: HistoryOutput): { tone: 'muted' | 'warning' | 'error'; text: string }[] {
  const notes: { tone: 'muted' | 'warning' | 'error'; text: string }[] = []
  if (stream.logFile !== null) {
    notes.push({ tone: 'muted', text: `Over 64 KiB: kept in logs/${stream.logFile}${stream.sha256 ? ` (sha256 ${stream.sha256.slice(0, 12)}…)` : ''}.` })
  }
  if (stream.truncated) notes.push({ tone: 'warning', text: 'Truncated at the agent’s output limit: the end of the output was not kept.' })
  if (stream.problem) notes.push({ tone: 'error', text: stream.problem })
  return notes
}

/** Whether an output stream has anything to show. */
export function hasOutput(stream: HistoryOutput): boolean {
  return (stream.text !== null && stream.text.length > 0) || stream.logFile !== null || stream.problem !== undefined
}

const axisLabels = [
  ['processContained', 'process contained'],
  ['hostFilesystemRestricted', 'host filesystem restricted'],
  ['privilegeEscalationBlocked', 'privilege escalation blocked'],
  ['syscallsRestricted', 'syscalls restricted']
] as const

/** The provider facts a call recorded, arranged for the detail pane. */
export type ProviderFacts = {
  providerId?: string
  axes: { label: string; on: boolean }[]
  mechanism?: string
  networkMode?: string
  /** Set when the preferred isolation was not available and a weaker provider ran the call. */
  fallback?: string
  probes: { providerId: string; eligible: boolean; reason?: string }[]
  /** Any other recorded fact, as key and short text. */
  other: [string, string][]
}

/** Arranges a row's `provider` record (providerId, isolation, fallback, probes, …) for display. */
export function providerFacts(provider: Record<string, unknown> | null): ProviderFacts | undefined {
  if (provider === null || typeof provider !== 'object') return undefined
  const { providerId, isolation, preferenceFallback, fallback, probes, ...rest } = provider
  const iso = isolation !== null && typeof isolation === 'object' ? (isolation as Record<string, unknown>) : undefined
  const reason = fallback !== null && typeof fallback === 'object' ? (fallback as Record<string, unknown>).reason : fallback
  const fallbackText =
    typeof reason === 'string' ? reason : fallback !== undefined && fallback !== null ? JSON.stringify(fallback) : preferenceFallback === true ? 'the preferred isolation was not available' : undefined
  return {
    providerId: typeof providerId === 'string' ? providerId : undefined,
    axes: iso ? axisLabels.filter(([key]) => typeof iso[key] === 'boolean').map(([key, label]) => ({ label, on: iso[key] === true })) : [],
    mechanism: typeof iso?.mechanism === 'string' ? iso.mechanism : undefined,
    networkMode: typeof iso?.networkMode === 'string' ? iso.networkMode : undefined,
    fallback: fallbackText,
    probes: Array.isArray(probes)
      ? probes
          .filter((probe): probe is Record<string, unknown> => probe !== null && typeof probe === 'object')
          .map((probe) => ({ providerId: String(probe.providerId), eligible: probe.eligible === true, ...(typeof probe.reason === 'string' ? { reason: probe.reason } : {}) }))
      : [],
    other: Object.entries(rest).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)])
  }
}

/** The verification result as one sentence. */
export function verificationText(result: HistoryVerification): string {
  if (result.ok) return `Chain intact: ${result.rows} ${result.rows === 1 ? 'row checks' : 'rows check'} out${result.head ? `; head ${result.head.slice(0, 16)}…` : '.'}`
  const where = result.brokenAt ? ` at row ${result.brokenAt.seq}${result.brokenAt.id ? ` (${result.brokenAt.id})` : ''}` : ''
  return `Chain broken${where}: ${result.reason ?? 'no reason given'}. ${result.rows} ${result.rows === 1 ? 'row checks' : 'rows check'} out before it.`
}

/** A byte count: `512 B`, `4.2 KiB`, `3.1 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}

/** Agent ids for the agent filter: those registered plus those seen in rows (removed agents keep their history), sorted. */
export function agentOptions(registered: readonly string[], rows: readonly HistoryRow[], selected: string): string[] {
  const ids = new Set(registered)
  for (const row of rows) if (row.agentId) ids.add(row.agentId)
  if (selected) ids.add(selected)
  return [...ids].sort()
}

/** Tool names for the tool filter's suggestions: the built-in tools plus those seen in rows, sorted. */
export function toolOptions(rows: readonly HistoryRow[]): string[] {
  const tools = new Set(builtinTools)
  for (const row of rows) tools.add(row.tool)
  return [...tools].sort()
}

const builtinTools = ['browse', 'edit_file', 'list_directory', 'read_file', 'run_code', 'run_command', 'search_files', 'sqlite_query', 'vector_search', 'vector_upsert', 'write_file']
