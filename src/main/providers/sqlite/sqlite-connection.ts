import type Database from 'better-sqlite3'

/** A query's outcome: rows (for reads), changes (for writes), or blocked with the reason. */
export type SqliteQueryResult =
  | { status: 'ok'; rows: Record<string, unknown>[]; changes: number; truncated: boolean }
  | { status: 'blocked'; reason: string }

/** Statements that reach files outside the database (read or write), refused on every handle. */
const fileReaching = /^\s*(attach|detach|vacuum\s+.*\binto\b)/is
/** Pragmas that change how the file is written or what the connection may do. */
const unsafePragma = /^\s*pragma\s+(\w+\.)?(journal_mode|locking_mode|writable_schema|trusted_schema|temp_store_directory|data_store_directory|mmap_size)\b/is

/**
 * The `sqlite` provider's live resource: one connection to one database file. Read-only unless
 * the policy allows writes; a write on a read-only connection comes back as `blocked` (approval
 * needed), never as an exception.
 */
export class SqliteConnection {
  constructor(
    private readonly db: Database.Database,
    readonly writable: boolean,
    private readonly maxRows: number
  ) {}

  /** Runs one SQL statement with positional or named parameters. */
  query(sql: string, params: unknown[] | Record<string, unknown> = []): SqliteQueryResult {
    const text = withoutLeadingComments(sql)
    if (fileReaching.test(text)) return { status: 'blocked', reason: 'ATTACH, DETACH and VACUUM INTO reach files outside this database and are not allowed' }
    if (unsafePragma.test(text)) return { status: 'blocked', reason: 'this PRAGMA changes how the database file is written and is not allowed' }
    const statement = this.db.prepare(sql)
    if (!statement.readonly && !this.writable) {
      return { status: 'blocked', reason: 'this statement writes, and the connection is read-only: it needs approval or a policy that allows writes' }
    }
    const args = Array.isArray(params) ? params : [params]
    if (statement.reader) {
      const rows: Record<string, unknown>[] = []
      let truncated = false
      for (const row of statement.iterate(...args) as Iterable<Record<string, unknown>>) {
        if (rows.length === this.maxRows) {
          truncated = true
          break
        }
        rows.push(row)
      }
      return { status: 'ok', rows, changes: 0, truncated }
    }
    const info = statement.run(...args)
    return { status: 'ok', rows: [], changes: info.changes, truncated: false }
  }

  /** Runs `select 1`: the connection answers. */
  ping(): boolean {
    return this.db.prepare('select 1 as ok').get() !== undefined
  }

  /** True while the connection is open. */
  get open(): boolean {
    return this.db.open
  }

  /** Closes the connection. */
  close(): void {
    if (this.db.open) this.db.close()
  }
}

function withoutLeadingComments(sql: string): string {
  let text = sql
  for (;;) {
    const trimmed = text.replace(/^\s+/, '')
    if (trimmed.startsWith('--')) text = trimmed.slice(trimmed.indexOf('\n') + 1 || trimmed.length)
    else if (trimmed.startsWith('/*')) text = trimmed.slice(trimmed.indexOf('*/') + 2 || trimmed.length)
    else return trimmed
  }
}
