/** Rows as `sqlite_query` returns them: JSON-safe, within a byte budget, with the bound reported. */
export type BoundedRows = { rows: Record<string, unknown>[]; truncated: boolean; note?: string }

/**
 * Makes rows JSON-safe (a BLOB becomes `{blob: <base64>, bytes}`, a bigint its decimal text) and
 * keeps whole rows while their JSON fits `maxBytes` (the agent's output limit). `rowLimited` says the
 * connection already stopped at its row limit; either bound is reported in `note`.
 */
export function boundRows(rows: readonly Record<string, unknown>[], maxBytes: number, rowLimited: boolean): BoundedRows {
  const kept: Record<string, unknown>[] = []
  let used = 2
  for (const row of rows) {
    const safe = Object.fromEntries(Object.entries(row).map(([column, value]) => [column, jsonSafe(value)]))
    const bytes = Buffer.byteLength(JSON.stringify(safe)) + 1
    if (used + bytes > maxBytes) {
      return {
        rows: kept,
        truncated: true,
        note: `only the first ${kept.length} of ${rows.length}${rowLimited ? '+' : ''} rows are returned: the rest would pass the agent's output limit of ${maxBytes} bytes`
      }
    }
    used += bytes
    kept.push(safe)
  }
  if (rowLimited)
    return {
      rows: kept,
      truncated: true,
      note: `only the first ${kept.length} rows are returned (the connection's row limit); narrow the query or page with LIMIT/OFFSET`
    }
  return { rows: kept, truncated: false }
}

function jsonSafe(value: unknown): unknown {
  if (value instanceof Uint8Array) return { blob: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64'), bytes: value.byteLength }
  if (typeof value === 'bigint') return value.toString()
  return value
}
