import Database from 'better-sqlite3'
import type { DatabaseFile } from './sqlite-database-file'
import { readProgram, refusalOf } from './sqlite-program'
import { pragmaAsSelect, statementRoute } from './sqlite-statement-head'

/** A query's outcome: rows (for reads), changes (for writes), or blocked with the reason. */
export type SqliteQueryResult = { status: 'ok'; rows: Record<string, unknown>[]; changes: number; truncated: boolean } | { status: 'blocked'; reason: string }

type Admitted = { statement: Database.Statement; args: unknown[] } | { blocked: string }

/**
 * The `sqlite` provider's live resource: one connection to one database file, held as an in-memory
 * image of the file (see `DatabaseFile`; `:memory:` has none). Read-only unless the policy allows
 * writes; a write on a read-only connection comes back as `blocked` (approval needed), never as an
 * exception. A writable connection's changes reach the file when it is closed.
 *
 * Nothing it runs reaches a file other than its own database, decided by SQLite rather than by
 * matching text: each statement is prepared and judged on the VDBE program SQLite compiled it to
 * (sqlite-program.ts: reviewed opcodes only, no VACUUM INTO, no ATTACH/DETACH, no native-code
 * loaders), and a read-only connection runs only what `sqlite3_stmt_readonly` calls read-only.
 * The one exception is PRAGMA, which SQLite carries out while preparing it: its text is never
 * prepared, it becomes a SELECT on SQLite's side-effect-free `pragma_<name>` table
 * (sqlite-statement-head.ts). better-sqlite3 offers neither an authorizer nor
 * SQLITE_LIMIT_ATTACHED, which would have let SQLite refuse these outright.
 */
export class SqliteConnection {
  constructor(
    private readonly db: Database.Database,
    readonly writable: boolean,
    private readonly maxRows: number,
    private readonly file?: DatabaseFile
  ) {}

  /**
   * Runs one SQL statement with positional or named parameters. SQLite's own errors (syntax, no
   * such table, constraint) are thrown as its `SqliteError`; a refusal, or more than one
   * statement, comes back as `blocked` with the reason.
   */
  query(sql: string, params: unknown[] | Record<string, unknown> = []): SqliteQueryResult {
    const admitted = this.admit(sql, Array.isArray(params) ? params : [params])
    if ('blocked' in admitted) return { status: 'blocked', reason: admitted.blocked }
    const { statement, args } = admitted
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

  /**
   * Closes the connection. A writable one over a workspace file first writes the database back when
   * it changed (`DatabaseFile.saveIfChanged`); a failed write-back is thrown after the connection is
   * closed, once: closing again does nothing.
   */
  close(): void {
    if (!this.db.open) return
    try {
      const image = this.writable && this.file ? this.db.serialize() : undefined
      this.db.close()
      if (image) this.file!.saveIfChanged(image)
    } finally {
      if (this.db.open) this.db.close()
      this.file?.close()
    }
  }

  /**
   * The gate, in order: text SQLite would read differently (NUL) is refused; the first keyword,
   * read as SQLite reads it, decides whether the text may be prepared at all (a PRAGMA is replaced
   * by its table-valued SELECT); better-sqlite3 prepares exactly one statement; then the program
   * SQLite compiled is judged, and a read-only connection runs only what SQLite calls read-only.
   */
  private admit(sql: string, agentArgs: unknown[]): Admitted {
    let text = sql
    let args = agentArgs
    let pragma: { name: string; setsValue: boolean } | undefined
    const route = statementRoute(sql)
    if (route.route === 'refused') return { blocked: route.reason }
    if (route.route === 'pragma') {
      const rewritten = pragmaAsSelect(sql)
      if ('refused' in rewritten) return { blocked: `${rewritten.refused}; PRAGMAs that read can also be written as SELECT * FROM pragma_<name>('<argument>')` }
      if (hasValues(agentArgs)) return { blocked: 'a PRAGMA takes no parameters' }
      pragma = { name: rewritten.pragma, setsValue: rewritten.setsValue }
      text = rewritten.sql
      args = rewritten.params
    }

    let statement: Database.Statement
    try {
      statement = this.db.prepare(text)
    } catch (error) {
      if (pragma && error instanceof Database.SqliteError) return { blocked: pragmaRefusal(pragma) }
      // better-sqlite3 prepares the first statement only and refuses the rest of the text.
      if (error instanceof RangeError) return { blocked: `send one statement per call: ${error.message}` }
      throw error
    }
    const refusal = refusalOf(readProgram(this.db, text, args))
    if (refusal) return { blocked: refusal }
    if (!statement.readonly && !this.writable) {
      return { blocked: 'this statement writes, and the connection is read-only: it needs approval or a policy that allows writes' }
    }
    return { statement, args }
  }
}

function hasValues(args: unknown[]): boolean {
  return args.some((a) => Array.isArray(a) || typeof a !== 'object' || a === null || Object.keys(a).length > 0)
}

/** SQLite has no table-valued form of this pragma, or none that takes a value: it is not one that only reads. */
function pragmaRefusal(pragma: { name: string; setsValue: boolean }): string {
  return pragma.setsValue
    ? `PRAGMA ${pragma.name} with a value changes a setting of the connection or its files, which Airlock fixes; only PRAGMAs that read are run`
    : `PRAGMA ${pragma.name} is not one SQLite offers as a read-only table (pragma_${pragma.name}), so it is not run`
}
