import type { HistoryRow, HistoryStatus } from '@shared/ipc/history'

/** Loaded rows (newest first) plus the cursor of the page after them (undefined once the last page is loaded; always present as a key, so a store update clears it). */
export type LoadedRows = { rows: HistoryRow[]; nextCursor?: number }

/** Appends a further page, dropping rows already loaded (newest first, by seq). */
export function appendPage(loaded: LoadedRows, page: LoadedRows): LoadedRows {
  const lowest = loaded.rows.length > 0 ? loaded.rows[loaded.rows.length - 1]!.seq : Infinity
  const older = page.rows.filter((row) => row.seq < lowest)
  return { rows: older.length === 0 ? loaded.rows : loaded.rows.concat(older), nextCursor: page.nextCursor }
}

/**
 * A fresh first page laid over what is loaded: the fresh rows replace those they cover, and the
 * older rows loaded by scrolling stay (with their cursor) when the fresh page reaches down into
 * them. A fresh page that is the whole list replaces it; one that does not reach the loaded rows
 * (more new calls than a page) replaces them too, since the calls in between are not loaded.
 */
export function mergeFirstPage(loaded: LoadedRows, fresh: LoadedRows): LoadedRows {
  const whole = { rows: fresh.rows, nextCursor: fresh.nextCursor }
  if (fresh.nextCursor === undefined || fresh.rows.length === 0) return { rows: fresh.rows, nextCursor: undefined }
  const lowestFresh = fresh.rows[fresh.rows.length - 1]!.seq
  const highestLoaded = loaded.rows[0]?.seq ?? -Infinity
  if (lowestFresh > highestLoaded) return whole
  const firstOlder = loaded.rows.findIndex((row) => row.seq < lowestFresh)
  if (firstOlder === -1) return whole
  return { rows: fresh.rows.concat(loaded.rows.slice(firstOlder)), nextCursor: loaded.nextCursor }
}

/** How many rows sit above the row `seq` (the rows that came in on top of it); 0 when it is gone. */
export function rowsAbove(rows: readonly HistoryRow[], seq: number | undefined): number {
  if (seq === undefined) return 0
  let index = 0
  while (index < rows.length && rows[index]!.seq > seq) index++
  return index < rows.length && rows[index]!.seq === seq ? index : 0
}

/** A loaded row's status updated from a `history.changed` event (the same array when nothing changed). */
export function withStatus(rows: HistoryRow[], change: { id: string; status: HistoryStatus }): HistoryRow[] {
  const index = rows.findIndex((row) => row.id === change.id)
  if (index === -1 || rows[index]!.status === change.status) return rows
  const next = rows.slice()
  next[index] = { ...rows[index]!, status: change.status }
  return next
}
