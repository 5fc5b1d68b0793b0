import type { HistoryRow } from '@shared/ipc/history'

/** The built-in tools an agent can call (SPEC §5.3); upstream MCP tools join from the rows. */
export const builtinTools = [
  'browse',
  'edit_file',
  'list_directory',
  'read_file',
  'run_code',
  'run_command',
  'search_files',
  'sqlite_query',
  'vector_search',
  'vector_upsert',
  'write_file'
]

/** Agent ids, tools and provider ids seen in any page the host returned (removed agents keep their history). */
export type SeenValues = { agentIds: readonly string[]; tools: readonly string[]; providerIds: readonly string[] }

/** Nothing seen yet. */
export const nothingSeen: SeenValues = { agentIds: [], tools: [], providerIds: [] }

/** `seen` grown by the values of `rows`; the same object when the rows add nothing (so subscribers do not re-render). */
export function withSeen(seen: SeenValues, rows: readonly HistoryRow[]): SeenValues {
  const grow = (known: readonly string[], pick: (row: HistoryRow) => string | null) => {
    let set: Set<string> | undefined
    for (const row of rows) {
      const value = pick(row)
      if (!value || known.includes(value) || set?.has(value)) continue
      set ??= new Set(known)
      set.add(value)
    }
    return set ? [...set] : known
  }
  const next = {
    agentIds: grow(seen.agentIds, (row) => row.agentId),
    tools: grow(seen.tools, (row) => row.tool),
    providerIds: grow(seen.providerIds, (row) => row.providerId)
  }
  return next.agentIds === seen.agentIds && next.tools === seen.tools && next.providerIds === seen.providerIds ? seen : next
}

function merged(...lists: (readonly string[] | string)[]): string[] {
  const values = new Set<string>()
  for (const list of lists) for (const value of typeof list === 'string' ? [list] : list) if (value) values.add(value)
  return [...values].sort()
}

/** Agent ids for the agent filter: registered, seen in history, and the selected one, sorted. */
export function agentOptions(registered: readonly string[], seen: SeenValues, selected: string): string[] {
  return merged(registered, seen.agentIds, selected)
}

/** Tool names for the tool filter: the built-in tools, those seen in history, and the selected one, sorted. */
export function toolOptions(seen: SeenValues, selected: string): string[] {
  return merged(builtinTools, seen.tools, selected)
}

/** Provider ids for the provider filter: registered, seen in history, and the selected one, sorted. */
export function providerOptions(registered: readonly string[], seen: SeenValues, selected: string): string[] {
  return merged(registered, seen.providerIds, selected)
}
