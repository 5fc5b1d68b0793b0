import type Database from 'better-sqlite3'
import type { z } from 'zod'
import { describeIssues } from '@shared/agents'
import {
  VectorStoreError,
  vectorDeleteInputSchema,
  vectorSearchInputSchema,
  vectorStoreLimits,
  vectorUpsertInputSchema,
  type VectorCollectionInfo,
  type VectorFilter,
  type VectorMatch,
  type VectorMetric,
  type VectorStore,
  type VectorUpsertResult
} from '../../core/live-resources/vector'

type Collection = { id: number; name: string; dimension: number; metric: VectorMetric }

/** Vectors per sqlite-vec chunk: small, so a 4096-dimension collection with one item is not 16 MiB on disk. */
const chunkSize = 64

/**
 * The `vector_store` provider's live resource: the collections of one store file (SPEC §4).
 * Each collection is a row of `vector_collections` (name, dimension, metric), a sqlite-vec `vec0`
 * table named by that row's integer id (never by the given name), and its items' ids and metadata
 * in `vector_items`, whose integer `row` is the vector's rowid. Search is sqlite-vec's exact k-NN;
 * a filter narrows the candidate rowids first, so k matches are found whenever k items match.
 */
export class SqliteVectorStore implements VectorStore {
  constructor(
    private readonly db: Database.Database,
    readonly readOnly: boolean
  ) {}

  async upsert(raw: z.input<typeof vectorUpsertInputSchema>): Promise<VectorUpsertResult> {
    const input = parse(vectorUpsertInputSchema, raw)
    this.assertWritable()
    return this.db.transaction(() => {
      let collection = this.collection(input.collection)
      const created = collection === undefined
      collection ??= this.create(input.collection, input.items[0]!.vector.length, input.metric ?? 'l2')
      if (input.metric !== undefined && input.metric !== collection.metric) {
        throw new VectorStoreError(
          'metric_mismatch',
          `metric: collection ${collection.name} measures ${collection.metric} distance, not ${input.metric} (the metric is fixed when a collection is created).`,
          { collection: collection.name }
        )
      }
      for (const [index, item] of input.items.entries()) checkVector(collection, item.vector, `items.${index}.vector`)
      const table = vectorTable(collection)
      const find = this.db.prepare('select row from vector_items where collection_id = ? and item_id = ?').pluck()
      const update = this.db.prepare('update vector_items set metadata = ? where row = ?')
      const insert = this.db.prepare('insert into vector_items (collection_id, item_id, metadata) values (?, ?, ?)')
      const removeVector = this.db.prepare(`delete from ${table} where rowid = ?`)
      const insertVector = this.db.prepare(`insert into ${table} (rowid, embedding) values (?, ?)`)
      for (const item of input.items) {
        const metadata = JSON.stringify(item.metadata ?? {})
        let row = find.get(collection.id, item.id) as number | undefined
        if (row === undefined) row = Number(insert.run(collection.id, item.id, metadata).lastInsertRowid)
        else {
          update.run(metadata, row)
          removeVector.run(BigInt(row))
        }
        insertVector.run(BigInt(row), float32(item.vector))
      }
      return { ids: input.items.map((item) => item.id), created, dimension: collection.dimension, metric: collection.metric }
    })()
  }

  async search(raw: z.input<typeof vectorSearchInputSchema>): Promise<VectorMatch[]> {
    const input = parse(vectorSearchInputSchema, raw)
    this.assertOpen()
    const collection = this.required(input.collection)
    checkVector(collection, input.vector, 'vector')
    const { sql: narrow, params } = filterClause(collection.id, input.filter)
    const hits = this.db
      .prepare(`select rowid as row, distance from ${vectorTable(collection)} where embedding match ? and k = ?${narrow} order by distance`)
      .all(float32(input.vector), input.k, ...params) as { row: number; distance: number }[]
    const item = this.db.prepare('select item_id as id, metadata from vector_items where row = ?')
    const matches = hits.map(({ row, distance }) => {
      const found = item.get(row) as { id: string; metadata: string } | undefined
      if (!found)
        throw new VectorStoreError('not_a_vector_store', `collection ${collection.name} is damaged: vector ${row} has no item.`, {
          collection: collection.name
        })
      return { id: found.id, distance, metadata: JSON.parse(found.metadata) as Record<string, unknown> }
    })
    // Equal distances come back in id order, so the same store answers the same way every time.
    return matches.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }

  async delete(raw: z.input<typeof vectorDeleteInputSchema>): Promise<{ deleted: string[] }> {
    const input = parse(vectorDeleteInputSchema, raw)
    this.assertWritable()
    return this.db.transaction(() => {
      const collection = this.required(input.collection)
      const find = this.db.prepare('select row from vector_items where collection_id = ? and item_id = ?').pluck()
      const removeItem = this.db.prepare('delete from vector_items where row = ?')
      const removeVector = this.db.prepare(`delete from ${vectorTable(collection)} where rowid = ?`)
      const deleted: string[] = []
      for (const id of new Set(input.ids)) {
        const row = find.get(collection.id, id) as number | undefined
        if (row === undefined) continue
        removeVector.run(BigInt(row))
        removeItem.run(row)
        deleted.push(id)
      }
      return { deleted }
    })()
  }

  async collections(): Promise<VectorCollectionInfo[]> {
    this.assertOpen()
    return this.db
      .prepare(
        'select c.name, c.dimension, c.metric, (select count(*) from vector_items i where i.collection_id = c.id) as count from vector_collections c order by c.name'
      )
      .all() as VectorCollectionInfo[]
  }

  /** True when the database answers and sqlite-vec is loaded. */
  ping(): boolean {
    return this.db.open && typeof this.db.prepare('select vec_version()').pluck().get() === 'string'
  }

  /** True while the store's database is open. */
  get open(): boolean {
    return this.db.open
  }

  /** Closes the database (the last connection checkpoints the WAL into the file). */
  close(): void {
    if (this.db.open) this.db.close()
  }

  private collection(name: string): Collection | undefined {
    return this.db.prepare('select id, name, dimension, metric from vector_collections where name = ?').get(name) as Collection | undefined
  }

  private required(name: string): Collection {
    const collection = this.collection(name)
    if (!collection)
      throw new VectorStoreError('unknown_collection', `collection: there is no collection named ${name} (the first upsert to a name creates it).`, {
        collection: name
      })
    return collection
  }

  private create(name: string, dimension: number, metric: VectorMetric): Collection {
    const count = this.db.prepare('select count(*) from vector_collections').pluck().get() as number
    if (count >= vectorStoreLimits.maxCollections) {
      throw new VectorStoreError('too_many_collections', `collection: this store already has ${count} collections, the most it may hold; reuse one.`, {
        limit: vectorStoreLimits.maxCollections
      })
    }
    const id = Number(
      this.db
        .prepare('insert into vector_collections (name, dimension, metric, created_at) values (?, ?, ?, ?)')
        .run(name, dimension, metric, new Date().toISOString()).lastInsertRowid
    )
    const collection = { id, name, dimension, metric }
    // Every part of this statement is an integer or a fixed word checked above, never given text.
    this.db.exec(`create virtual table ${vectorTable(collection)} using vec0(embedding float[${dimension}] distance_metric=${metric}, chunk_size=${chunkSize})`)
    return collection
  }

  private assertOpen(): void {
    if (!this.db.open) throw new VectorStoreError('closed', 'This vector store handle was released.')
  }

  private assertWritable(): void {
    this.assertOpen()
    if (this.readOnly) throw new VectorStoreError('read_only', 'This vector store handle is read-only (its policy says readOnly).')
  }
}

function vectorTable(collection: Collection): string {
  if (!Number.isSafeInteger(collection.id) || collection.id < 1 || !['l2', 'cosine'].includes(collection.metric)) {
    throw new VectorStoreError('not_a_vector_store', `collection ${collection.name} is damaged.`, { collection: collection.name })
  }
  return `vectors_${collection.id}`
}

function checkVector(collection: Collection, vector: number[], field: string): void {
  if (vector.length !== collection.dimension) {
    throw new VectorStoreError(
      'dimension_mismatch',
      `${field}: has ${vector.length} dimensions; collection ${collection.name} holds ${collection.dimension}-dimension vectors.`,
      {
        collection: collection.name,
        expected: collection.dimension,
        received: vector.length
      }
    )
  }
  // A zero vector has no direction: its cosine distance is undefined (sqlite-vec answers NULL, which sorts first).
  if (collection.metric === 'cosine' && vector.every((x) => Math.fround(x) === 0)) {
    throw new VectorStoreError('invalid_input', `${field}: collection ${collection.name} measures cosine distance, which a zero vector does not have.`, {
      collection: collection.name
    })
  }
}

/**
 * The SQL narrowing a k-NN query to the items of `collectionId` whose top-level metadata matches
 * every key of `filter`: by JSON type and value, through `json_each`, so keys and values are
 * bound parameters whatever characters they hold.
 */
function filterClause(collectionId: number, filter: VectorFilter | undefined): { sql: string; params: unknown[] } {
  const entries = Object.entries(filter ?? {})
  if (entries.length === 0) return { sql: '', params: [] }
  const conditions: string[] = []
  const params: unknown[] = [collectionId]
  for (const [key, value] of entries) {
    if (value === null) conditions.push("type = 'null'")
    else if (typeof value === 'boolean') conditions.push(value ? "type = 'true'" : "type = 'false'")
    else if (typeof value === 'number') conditions.push("type in ('integer', 'real') and atom = ?")
    else conditions.push("type = 'text' and atom = ?")
    params.push(key)
    if (typeof value === 'number' || typeof value === 'string') params.push(value)
  }
  const exists = conditions.map((condition) => `exists (select 1 from json_each(i.metadata) where key = ? and ${condition})`)
  return { sql: ` and rowid in (select i.row from vector_items i where i.collection_id = ? and ${exists.join(' and ')})`, params }
}

function float32(vector: number[]): Buffer {
  const array = Float32Array.from(vector)
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength)
}

function parse<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw)
  if (!parsed.success)
    throw new VectorStoreError('invalid_input', `Invalid vector store input: ${describeIssues(parsed.error)}.`, {
      issues: parsed.error.issues.map((i) => i.path.join('.'))
    })
  return parsed.data
}
