import { join } from 'node:path'
import Database from 'better-sqlite3'
import { z } from 'zod'
import { ExecutionResourceError, type ExecutionResourceProvider, type ProviderProbe, type ResourceHandle, type ResourceStatus } from '../../core'
import { vectorCollectionNameSchema, vectorMetricSchema, vectorStoreLimits } from '../../core/live-resources/vector'
import { cached, invalidConfig } from '../provider-helpers'
import { SqliteVectorStore } from './sqlite-vector-store'
import { ensureStoreDirectory, loadVectorExtension, openStoreFile } from './vector-store-file'

/**
 * The vector_store provider's config: which store (a slug; the vector actions pass the agent id).
 * Never a path: where stores live is the provider's decision, not the requirement's.
 */
export const vectorStoreConfigSchema = z.object({ store: vectorCollectionNameSchema }).strict()

/** What the provider is built from: the Airlock home, whose `vectors/` folder holds the stores. */
export type VectorStoreProviderOptions = { home: string }

/**
 * `vector_store` (SPEC §4): a collection store in one SQLite file per store id with sqlite-vec,
 * at `<home>/vectors/<store>.db` (mode 0600 in a 0700 folder). The file lives under the Airlock
 * home and never in the agent's workspace, which sandboxed code can write: there it could be
 * swapped for a symlink or a crafted database. A file found there that is not a store is refused
 * and left as it is. Handles are writable unless `policy.readOnly` is true (the store is the
 * agent's own and only ever written through validated calls); scope and reuse are the
 * requirement's. Health is a query answered with sqlite-vec loaded; release closes the database.
 */
export class VectorStoreProvider implements ExecutionResourceProvider {
  readonly providerId = 'vector_store'
  readonly supportedKinds = ['vector_store'] as const
  private readonly directory: string
  private readonly version = cached(60_000, async () => sqliteVecVersion())

  constructor(options: VectorStoreProviderOptions) {
    this.directory = join(options.home, 'vectors')
  }

  async probe({ requirement }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const config = vectorStoreConfigSchema.safeParse(requirement.config ?? {})
    if (!config.success) return invalidConfig('vector_store', config.error)
    try {
      const version = await this.version()
      return {
        available: true,
        capabilities: {
          engine: 'sqlite-vec',
          version,
          metrics: vectorMetricSchema.options,
          maxDimensions: vectorStoreLimits.maxDimensions,
          maxK: vectorStoreLimits.maxK,
          filter: 'equality on top-level metadata keys'
        }
      }
    } catch (error) {
      return { available: false, reason: (error as Error).message }
    }
  }

  async ensure({ requirement, policy }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    const config = vectorStoreConfigSchema.safeParse(requirement.config ?? {})
    if (!config.success)
      throw new ExecutionResourceError('invalid_requirement', invalidConfig('vector_store', config.error).reason ?? 'invalid vector_store config', {
        providerId: this.providerId
      })
    const readOnly = policy.readOnly === true
    ensureStoreDirectory(this.directory)
    const file = join(this.directory, `${config.data.store}.db`)
    const store = new SqliteVectorStore(openStoreFile(file, { readOnly }), readOnly)
    return { resource: store, meta: { store: config.data.store, file, readOnly } }
  }

  async healthCheck(handle: ResourceHandle): Promise<ResourceStatus> {
    try {
      return (handle.resource as SqliteVectorStore).ping() ? 'ready' : 'unhealthy'
    } catch {
      return 'unhealthy'
    }
  }

  async release(handle: ResourceHandle): Promise<void> {
    ;(handle.resource as SqliteVectorStore).close()
  }
}

/** The version sqlite-vec reports once loaded into a scratch in-memory database. */
function sqliteVecVersion(): string {
  const db = new Database(':memory:')
  try {
    loadVectorExtension(db)
    return db.prepare('select vec_version()').pluck().get() as string
  } finally {
    db.close()
  }
}
