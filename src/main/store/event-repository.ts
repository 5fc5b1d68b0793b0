import type { Database } from 'better-sqlite3'

/** One row of the audit log. */
export type StoredEvent = { seq: number; type: string; payload: Record<string, unknown>; at: string }

/** The audit log: append-only rows of events whose payloads were already whitelisted. */
export class EventRepository {
  constructor(private readonly db: Database) {}

  /** Appends an event and returns its sequence number. */
  append(type: string, payload: Record<string, unknown>, at = new Date().toISOString()): number {
    const result = this.db
      .prepare('insert into events (type, payload_json, at) values (?, ?, ?)')
      .run(type, JSON.stringify(payload), at)
    return Number(result.lastInsertRowid)
  }

  /** The newest events first, optionally of one type. */
  recent(options: { limit?: number; type?: string } = {}): StoredEvent[] {
    const limit = Math.min(Math.max(options.limit ?? 100, 1), 10_000)
    const rows = (
      options.type
        ? this.db
            .prepare('select seq, type, payload_json, at from events where type = ? order by seq desc limit ?')
            .all(options.type, limit)
        : this.db.prepare('select seq, type, payload_json, at from events order by seq desc limit ?').all(limit)
    ) as { seq: number; type: string; payload_json: string; at: string }[]
    return rows.map((row) => ({ seq: row.seq, type: row.type, payload: JSON.parse(row.payload_json), at: row.at }))
  }
}
