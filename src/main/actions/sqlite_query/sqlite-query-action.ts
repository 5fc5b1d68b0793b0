import { AirlockError } from '@shared/errors'
import { z } from 'zod'
import type { ActionContext, ActionOutcome, ActionSpec, ResourceHandle } from '../../core'
import type { SqliteDatabase, SqliteStatementResult } from '../../core/live-resources/data'
import { DatabasePathError, locateDatabase } from './database-file'
import { boundRows } from './query-rows'
import { writePermission, type SqliteWritePolicy } from './write-permission'

const sqlValue = z.union([z.string(), z.number(), z.boolean().transform((b) => (b ? 1 : 0)), z.null()])

/** The input of `sqlite_query` (SPEC §5.3). Errors name the field. */
export const sqliteQueryInputSchema = z
  .object({
    database: z
      .string()
      .min(1, 'must not be empty')
      .max(1024)
      .refine((p) => !p.includes('\0'), 'must not contain NUL')
      .refine((p) => !p.startsWith('/'), 'must be a path relative to your workspace')
      .refine((p) => !p.split('/').includes('..'), 'must stay inside your workspace (no ..)')
      .describe('The SQLite database file, relative to your workspace.'),
    sql: z
      .string()
      .min(1, 'must not be empty')
      .max(1024 * 1024, 'is longer than 1 MiB')
      .describe('One SQL statement; use ? or :name placeholders for values.'),
    params: z
      .union([
        z.array(sqlValue).max(32766),
        z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'names are letters, digits and _ (no : @ $ prefix)'), sqlValue)
      ])
      .optional()
      .describe('Values for the placeholders: a list for ?, an object for :name.')
  })
  .strict()

/** A validated `sqlite_query` input. */
export type SqliteQueryInput = z.infer<typeof sqliteQueryInputSchema>

/** What `sqlite_query` returns in `data` (SPEC §5.3): rows of a read, changes of a write, and whether rows were cut. */
export type SqliteQueryData = { rows: Record<string, unknown>[]; changes: number; truncated: boolean }

/** SQLite's own refusal of the statement (syntax, no such table, constraint, wrong parameters). */
class SqliteStatementError extends AirlockError<'sqlite_query.sqlite_error'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('sqlite_query.sqlite_error', message, {}, options)
  }
}

/**
 * `sqlite_query` (SPEC §5.3): one SQL statement on a database file inside the agent's workspace,
 * through a `sqlite` requirement scoped to the call. Every statement first runs on a read-only
 * connection, where SQLite itself (the provider's statement gate: the compiled program and
 * `sqlite3_stmt_readonly`, never a text match) decides whether it writes. A write then follows
 * `writes` (default `ask`): the operator is asked through the approval queue unless the agent's
 * `ask` mode is `never`; `allow` runs writes without asking; `refuse` blocks them. An approved
 * write runs on a fresh writable connection (a missing database file is created then, never by a
 * read: a read of a missing file runs on an empty in-memory database). The path is looked at
 * through directory descriptors first (no symbolic link on any component, nothing in `.airlock/`)
 * to refuse it with the right reason; the provider then opens the file itself the same way and
 * hands SQLite only its bytes, so a path changed after the look is refused at the open, never
 * followed. Changes reach the file when the connection is released (a failure there is the call's
 * error, `execution_resource.release_failed`).
 */
export function createSqliteQueryAction(options: { writes?: SqliteWritePolicy } = {}): ActionSpec<typeof sqliteQueryInputSchema> {
  const writes = options.writes ?? 'ask'
  return {
    name: 'sqlite_query',
    description:
      'Run one SQL statement on a SQLite database file in your workspace (path relative to the workspace). Returns {rows, changes, truncated}. ' +
      'Use ? or :name parameters via params. Reads run directly; a statement that writes needs the operator’s approval.',
    inputSchema: sqliteQueryInputSchema,
    // Reads are the rule; a write is found by SQLite and decided by the executor itself.
    effects: 'read',
    summarize: (input) => `${input.database}: ${input.sql.length > 200 ? `${input.sql.slice(0, 200)}…` : input.sql}`,
    executor: { execute: (context) => sqliteQuery(context, writes) }
  }
}

/** `sqlite_query` with the default write policy (`ask`). */
export const sqliteQueryAction = createSqliteQueryAction()

/** One statement on one connection: its result and the facts of the connection. */
type Attempt = { result: SqliteStatementResult; provider: Record<string, unknown>; missing: boolean }

async function sqliteQuery(context: ActionContext<SqliteQueryInput>, writes: SqliteWritePolicy): Promise<ActionOutcome> {
  try {
    const read = await attempt(context, false)
    if (read.result.status === 'ok' || !writesRefused(read.result.reason)) return finish(context, read, {})
    const permission = await writePermission(context, writes)
    if ('outcome' in permission) return { ...permission.outcome, meta: { provider: read.provider, ...permission.outcome.meta } }
    return finish(context, await attempt(context, true), permission.granted)
  } catch (error) {
    if (error instanceof DatabasePathError && error.code === 'sqlite_query.folder_missing')
      return { status: 'error', error: { code: error.code, message: `${error.message}.` } }
    if (error instanceof DatabasePathError) {
      const decision = { decision: 'deny', rule: 'workspace.boundary', reason: error.message }
      return { status: 'blocked', meta: { policy: decision }, error: { code: error.code, message: `The database path is refused: ${error.message}.` } }
    }
    if (error instanceof SqliteStatementError) return { status: 'error', error: { code: error.code, message: error.message } }
    throw error
  }
}

/**
 * Opens a connection through the manager (read-only, or writable), runs the statement, and
 * releases the connection whatever happened (which writes a writable connection's changes back).
 */
async function attempt(context: ActionContext<SqliteQueryInput>, writable: boolean): Promise<Attempt> {
  const { agent, input } = context
  const location = locateDatabase(agent.workspace, input.database)
  const missing = !location.exists
  const inMemory = !writable && missing
  const handle = await openConnection(context, inMemory ? ':memory:' : location.relative, writable)
  try {
    const db = handle.resource as SqliteDatabase
    let result: SqliteStatementResult
    try {
      result = db.query(input.sql, input.params ?? [])
    } catch (error) {
      const sqliteCode = (error as { code?: unknown }).code
      const where = missing && !writable ? ` (${input.database} does not exist yet: the statement ran on an empty database)` : ''
      throw new SqliteStatementError(
        `SQLite refused the statement: ${(error as Error).message}${typeof sqliteCode === 'string' ? ` [${sqliteCode}]` : ''}${where}`
      )
    }
    return { result, missing: inMemory, provider: { providerId: handle.providerId, database: input.database, writable: db.writable } }
  } finally {
    await context.manager.release(handle)
  }
}

/** A `sqlite` handle scoped to the call; the provider's refusal of the path at the open is the action's `path_refused`. */
async function openConnection(context: ActionContext<SqliteQueryInput>, database: string, writable: boolean): Promise<ResourceHandle> {
  const { agent, callId } = context
  try {
    return await context.manager.ensure(
      {
        kind: 'sqlite',
        scope: 'action_call',
        ownerId: callId,
        actionCallId: callId,
        config: { database },
        policy: { workspaceRoots: [agent.workspace], readOnly: !writable }
      },
      { scope: 'action_call', ownerId: callId, signal: context.signal }
    )
  } catch (error) {
    if (error instanceof AirlockError && error.code === 'provider.workspace_boundary') throw new DatabasePathError(error.message)
    throw error
  }
}

/**
 * The provider's statement gate refuses a write on a read-only connection with this sentence. It
 * routes the call to the write permission; what may run is decided again by SQLite on the
 * writable connection, so a change of wording fails closed (the write is refused, not run).
 */
function writesRefused(reason: string): boolean {
  return /connection is read-only/.test(reason)
}

function finish(context: ActionContext<SqliteQueryInput>, attempted: Attempt, meta: Record<string, unknown>): ActionOutcome {
  const { result, provider } = attempted
  if (result.status === 'blocked') {
    const decision = { decision: 'deny', rule: 'sqlite.statement_refused', reason: result.reason }
    return {
      status: 'blocked',
      meta: { ...meta, provider, policy: decision },
      error: { code: 'policy.blocked', message: `The statement is refused: ${result.reason}.` }
    }
  }
  const bounded = boundRows(result.rows, context.agent.profile.limits.outputBytes, result.truncated)
  const diagnostics = [
    ...(bounded.note ? [bounded.note] : []),
    ...(attempted.missing ? [`${context.input.database} does not exist: the statement ran on an empty in-memory database (a write creates the file)`] : [])
  ]
  const data: SqliteQueryData = { rows: bounded.rows, changes: result.changes, truncated: bounded.truncated }
  return { data, diagnostics, meta: { ...meta, provider } }
}
