import type { HistoryRow } from '@shared/ipc/history'
import { filterInputOf, type HistoryFilters } from './filters'

/** Rows as JSON Lines: one call per line, newest first, exactly as `history.list` returned it. */
export function jsonlOf(rows: readonly HistoryRow[]): string {
  let text = ''
  for (const row of rows) text += `${JSON.stringify(row)}\n`
  return text
}

/** The download's name: when it was taken and the filters it holds (`airlock-history-20260102-0905-status-error.jsonl`). */
export function exportFileName(filters: HistoryFilters, now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  const stamp = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}`
  const parts = Object.entries(filterInputOf(filters))
    .filter(([key]) => key !== 'since' && key !== 'until')
    .map(([key, value]) => `${key === 'agentId' ? 'agent' : key === 'providerId' ? 'provider' : key}-${String(value)}`)
  const suffix = parts
    .join('-')
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .slice(0, 80)
  return `airlock-history-${stamp}${suffix ? `-${suffix}` : ''}.jsonl`
}
