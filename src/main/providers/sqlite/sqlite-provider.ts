import { isAbsolute, normalize } from 'node:path'
import Database from 'better-sqlite3'
import { z } from 'zod'
import type { ExecutionResourceProvider, ProviderProbe, ResourceHandle, ResourcePolicy, ResourceStatus } from '../../core'
import { realRoots } from '../../core/sandbox/workspace-paths'
import { SqliteConnection } from './sqlite-connection'
import { DatabaseFile, maxDatabaseBytes } from './sqlite-database-file'
import { invalidConfig } from '../provider-helpers'

/** The sqlite provider's config: a workspace-relative database path (or `:memory:`). */
export const sqliteConfigSchema = z
  .object({
    database: z
      .string()
      .min(1)
      .max(1024)
      .refine(
        (p) => p === ':memory:' || (!isAbsolute(p) && !normalize(p).startsWith('..') && !p.includes('\0')),
        'must be a path inside the workspace (relative, no ..) or :memory:'
      ),
    maxRows: z.number().int().min(1).max(100_000).optional()
  })
  .strict()

/** True when the policy lets this handle write. */
export function allowsWrites(policy: ResourcePolicy): boolean {
  return policy.readOnly === false || policy.allowCreate === true || policy.allowUpdate === true || policy.allowDelete === true
}

/**
 * `sqlite`: a better-sqlite3 connection to a database inside the workspace (SPEC §4). SQLite never
 * opens a workspace path: the workspace is writable by the agent's sandboxes, which can plant links
 * or swap folders at any moment, and SQLite resolves (and creates, and journals) by path. Instead
 * the file is opened through descriptors with no symbolic link on any component, read whole, and
 * handed to SQLite as an in-memory image (`DatabaseFile`); nothing else is ever opened.
 *
 * Semantics an agent sees: a writable connection's changes are written back when it is released,
 * as a whole new file renamed over the old one (owned by the sandbox identity), so a concurrent
 * writer among the agent's own processes loses to whichever finishes last; a database in WAL mode
 * whose `-wal` holds commits, or with a rollback journal holding a transaction, is refused (the
 * error says how to checkpoint it); files over 256 MiB are refused. A write-back that fails makes
 * `release` throw. Read-only unless the policy allows writes; statements are judged by SQLite's
 * compiled program (SqliteConnection); health is `select 1`.
 */
export class SqliteProvider implements ExecutionResourceProvider {
  readonly providerId = 'sqlite'
  readonly supportedKinds = ['sqlite'] as const

  async probe({ requirement, policy }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const config = sqliteConfigSchema.safeParse(requirement.config ?? {})
    if (!config.success) return invalidConfig('sqlite', config.error)
    // The file itself is judged when it is opened (ensure): a check here would only be a check of a path.
    try {
      if (config.data.database !== ':memory:') realRoots(policy.workspaceRoots)
    } catch (error) {
      return { available: false, reason: (error as Error).message }
    }
    return { available: true, capabilities: { writable: allowsWrites(policy), engine: 'sqlite' } }
  }

  async ensure({ requirement, policy }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    const config = sqliteConfigSchema.parse(requirement.config ?? {})
    const writable = allowsWrites(policy)
    const file = config.database === ':memory:' ? undefined : DatabaseFile.open(realRoots(policy.workspaceRoots)[0]!, config.database, { mustExist: !writable })
    let db: Database.Database
    try {
      db = file ? new Database(file.imageForSqlite(), { readonly: !writable }) : new Database(':memory:')
      // The connection's settings are Airlock's, not the agent's (the agent cannot set PRAGMAs):
      // schema objects may not call side-effecting functions, temp tables and sorts stay in memory
      // instead of files under the host's temp folder, the image cannot outgrow what is loaded,
      // and a read-only handle is read-only in SQLite too (`query_only` also covers :memory:).
      // better-sqlite3 keeps SQLITE_DBCONFIG_DEFENSIVE on unless `unsafeMode()` is called, which it never is here.
      db.pragma('trusted_schema = OFF')
      db.pragma('temp_store = MEMORY')
      db.pragma(`max_page_count = ${Math.floor(maxDatabaseBytes / (db.pragma('page_size', { simple: true }) as number))}`)
      if (!writable) db.pragma('query_only = ON')
    } catch (error) {
      file?.close()
      throw error
    }
    return { resource: new SqliteConnection(db, writable, config.maxRows ?? 1000, file), meta: { database: config.database, writable } }
  }

  async healthCheck(handle: ResourceHandle): Promise<ResourceStatus> {
    const connection = handle.resource as SqliteConnection
    try {
      return connection.open && connection.ping() ? 'ready' : 'unhealthy'
    } catch {
      return 'unhealthy'
    }
  }

  /** Closes the connection; a writable one writes its changes back first, and a failed write-back is thrown. */
  async release(handle: ResourceHandle): Promise<void> {
    ;(handle.resource as SqliteConnection).close()
  }
}
