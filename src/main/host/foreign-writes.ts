import type { Database } from 'better-sqlite3'

/** How often the host looks for another process's writes (views then catch up within about this). */
export const foreignWriteCheckMs = 1000

/**
 * Watches the home's database for commits made by other connections — the CLI (`airlock agent
 * create`, `approvals approve`, `net allow`…), a second console on the same home — and tells
 * `onChange`, so open views read again what they show. SQLite's own `PRAGMA data_version`
 * changes exactly when another connection committed (never for this connection's writes), so
 * this needs no change table and no triggers; one pragma a second costs microseconds.
 * Returns the function that stops watching.
 */
export function watchForeignWrites(db: Database, onChange: (dataVersion: number) => void, everyMs = foreignWriteCheckMs): () => void {
  const read = () => db.pragma('data_version', { simple: true }) as number
  let last = read()
  const timer = setInterval(() => {
    let now: number
    try {
      now = read()
    } catch {
      // The database is closing: the host is stopping.
      return
    }
    if (now === last) return
    last = now
    onChange(now)
  }, everyMs)
  timer.unref()
  return () => clearInterval(timer)
}
