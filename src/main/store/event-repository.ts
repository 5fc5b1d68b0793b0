import type { Database } from 'better-sqlite3'
import { appendLedger, eventDigest } from './audit-ledger'

/** One row of the audit log. */
export type StoredEvent = { seq: number; type: string; payload: Record<string, unknown>; at: string }

/**
 * The audit log: append-only rows of events whose payloads were already whitelisted. Each event
 * joins the audit ledger (audit-ledger.ts) in the transaction that appends it.
 */
export class EventRepository {
  constructor(private readonly db: Database) {}

  /** Appends an event (and its ledger entry) and returns its sequence number. */
  append(type: string, payload: Record<string, unknown>, at = new Date().toISOString()): number {
    return this.db
      .transaction(() => {
        const row = this.db
          .prepare('insert into events (type, payload_json, at) values (?, ?, ?) returning seq, type, payload_json, at')
          .get(type, JSON.stringify(payload), at) as Record<string, unknown>
        appendLedger(this.db, 'event', String(row.seq), eventDigest(row))
        return row.seq as number
      })
      .immediate()
  }

  /** The newest events first, optionally only types starting with one of `prefixes`. */
  recent(options: { limit?: number; prefixes?: string[] } = {}): StoredEvent[] {
    const limit = Math.min(Math.max(options.limit ?? 100, 1), 10_000)
    const prefixes = options.prefixes ?? []
    const where = prefixes.length > 0 ? `where ${prefixes.map(() => 'substr(type, 1, ?) = ?').join(' or ')}` : ''
    const rows = this.db
      .prepare(`select seq, type, payload_json, at from events ${where} order by seq desc limit ?`)
      .all(...prefixes.flatMap((prefix) => [prefix.length, prefix]), limit) as { seq: number; type: string; payload_json: string; at: string }[]
    return rows.map((row) => ({ seq: row.seq, type: row.type, payload: JSON.parse(row.payload_json), at: row.at }))
  }
}
