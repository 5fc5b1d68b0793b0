import { existsSync, realpathSync } from 'node:fs'
import { dirname, isAbsolute, join, normalize } from 'node:path'
import Database from 'better-sqlite3'
import { z } from 'zod'
import type { ExecutionResourceProvider, ProviderProbe, ResourceHandle, ResourcePolicy, ResourceStatus } from '../../core'
import { isInside, realRoots, WorkspaceBoundaryError } from '../process/workspace-paths'
import { SqliteConnection } from './sqlite-connection'
import { invalidConfig } from '../process/provider-helpers'

/** The sqlite provider's config: a workspace-relative database path (or `:memory:`). */
export const sqliteConfigSchema = z
  .object({
    database: z
      .string()
      .min(1)
      .max(1024)
      .refine((p) => p === ':memory:' || (!isAbsolute(p) && !normalize(p).startsWith('..') && !p.includes('\0')), 'must be a path inside the workspace (relative, no ..) or :memory:'),
    maxRows: z.number().int().min(1).max(100_000).optional()
  })
  .strict()

/** True when the policy lets this handle write. */
export function allowsWrites(policy: ResourcePolicy): boolean {
  return policy.readOnly === false || policy.allowCreate === true || policy.allowUpdate === true || policy.allowDelete === true
}

/**
 * `sqlite`: a better-sqlite3 connection to a database inside the workspace (SPEC §4). The path is
 * checked on its real location (symlinks followed); read-only unless the policy allows writes;
 * statements are judged by SQLite's compiled program (SqliteConnection); health is `select 1`.
 */
export class SqliteProvider implements ExecutionResourceProvider {
  readonly providerId = 'sqlite'
  readonly supportedKinds = ['sqlite'] as const

  async probe({ requirement, policy }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const config = sqliteConfigSchema.safeParse(requirement.config ?? {})
    if (!config.success) return invalidConfig('sqlite', config.error)
    try {
      this.locate(config.data.database, policy, allowsWrites(policy))
    } catch (error) {
      return { available: false, reason: (error as Error).message }
    }
    return { available: true, capabilities: { writable: allowsWrites(policy), engine: 'sqlite' } }
  }

  async ensure({ requirement, policy }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    const config = sqliteConfigSchema.parse(requirement.config ?? {})
    const writable = allowsWrites(policy)
    const file = this.locate(config.database, policy, writable)
    const db = new Database(file, { readonly: !writable && file !== ':memory:', fileMustExist: !writable && file !== ':memory:' })
    // The connection's settings are Airlock's, not the agent's (the agent cannot set PRAGMAs):
    // schema objects may not call side-effecting functions, temp tables and sorts stay in memory
    // instead of files under the host's temp folder, and a read-only handle is read-only in SQLite
    // too (`query_only` also covers :memory:, which cannot be opened read-only). better-sqlite3
    // keeps SQLITE_DBCONFIG_DEFENSIVE on unless `unsafeMode()` is called, which it never is here.
    db.pragma('trusted_schema = OFF')
    db.pragma('temp_store = MEMORY')
    if (!writable) db.pragma('query_only = ON')
    return { resource: new SqliteConnection(db, writable, config.maxRows ?? 1000), meta: { database: config.database, writable } }
  }

  async healthCheck(handle: ResourceHandle): Promise<ResourceStatus> {
    const connection = handle.resource as SqliteConnection
    try {
      return connection.open && connection.ping() ? 'ready' : 'unhealthy'
    } catch {
      return 'unhealthy'
    }
  }

  async release(handle: ResourceHandle): Promise<void> {
    ;(handle.resource as SqliteConnection).close()
  }

  /** The database file's real path inside the first workspace root, or `:memory:`. */
  private locate(database: string, policy: ResourcePolicy, writable: boolean): string {
    if (database === ':memory:') return database
    const [root] = realRoots(policy.workspaceRoots)
    const wanted = join(root!, database)
    if (existsSync(wanted)) {
      const real = realpathSync(wanted)
      if (!isInside(root!, real)) throw new WorkspaceBoundaryError(`the database ${database} resolves outside the workspace`)
      return real
    }
    if (!writable) throw new WorkspaceBoundaryError(`the database ${database} does not exist (a read-only connection does not create it)`)
    const parent = dirname(wanted)
    if (!existsSync(parent) || !isInside(root!, realpathSync(parent))) throw new WorkspaceBoundaryError(`the folder of ${database} does not exist inside the workspace`)
    return join(realpathSync(parent), wanted.slice(parent.length + 1))
  }
}
