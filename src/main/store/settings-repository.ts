import type { Database } from 'better-sqlite3'

/** Stored setting values (JSON), keyed by setting name. Validation belongs to the settings service. */
export class SettingsRepository {
  constructor(private readonly db: Database) {}

  /** The stored JSON value of a key, parsed, or undefined when the key was never set. */
  read(key: string): unknown {
    const row = this.db.prepare('select value_json from settings where key = ?').get(key) as { value_json: string } | undefined
    return row ? JSON.parse(row.value_json) : undefined
  }

  /** Every stored key and value. */
  readAll(): Map<string, unknown> {
    const rows = this.db.prepare('select key, value_json from settings').all() as {
      key: string
      value_json: string
    }[]
    return new Map(rows.map((row) => [row.key, JSON.parse(row.value_json)]))
  }

  /** Stores a value (insert or replace). */
  write(key: string, value: unknown): void {
    this.db
      .prepare(
        `insert into settings (key, value_json, updated_at) values (?, ?, ?)
         on conflict(key) do update set value_json = excluded.value_json, updated_at = excluded.updated_at`
      )
      .run(key, JSON.stringify(value), new Date().toISOString())
  }

  /** Forgets a stored value so the default applies again. */
  remove(key: string): void {
    this.db.prepare('delete from settings where key = ?').run(key)
  }
}
