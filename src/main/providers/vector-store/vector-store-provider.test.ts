import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../../test/support/temp-home'
import { ExecutionResourceManager, type ResourcePolicy } from '../../core'
import type { VectorStore } from '../../core/live-resources/vector'
import { VectorStoreProvider } from './vector-store-provider'

let home: ReturnType<typeof makeTempDir>
let manager: ExecutionResourceManager
beforeEach(() => {
  home = makeTempDir('airlock-vectors-')
  manager = new ExecutionResourceManager().registerProvider(new VectorStoreProvider({ home: home.path }))
})
afterEach(async () => {
  await manager.releaseAll()
  home.remove()
})

async function open(store = 'coder', policy: Partial<ResourcePolicy> = {}) {
  const handle = await manager.ensure({ kind: 'vector_store', config: { store }, policy })
  return { handle, vectors: handle.resource as VectorStore }
}

/** The error a promise rejects with, for asserting its code and message together. */
async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e as { code: string; message: string }
  )
  if (!error) throw new Error('expected a rejection')
  return error
}

describe('vector_store provider', () => {
  it('creates a collection on first upsert in <home>/vectors/<store>.db and finds the nearest items with their L2 distance', async () => {
    const { vectors, handle } = await open()
    const result = await vectors.upsert({
      collection: 'notes',
      items: [
        { id: 'origin', vector: [0, 0], metadata: { lang: 'en' } },
        { id: 'far', vector: [3, 4] },
        { id: 'near', vector: [1, 0], metadata: { lang: 'de' } }
      ]
    })
    expect(result).toEqual({ ids: ['origin', 'far', 'near'], created: true, dimension: 2, metric: 'l2' })
    expect(await vectors.search({ collection: 'notes', vector: [0, 0], k: 2 })).toEqual([
      { id: 'origin', distance: 0, metadata: { lang: 'en' } },
      { id: 'near', distance: 1, metadata: { lang: 'de' } }
    ])
    const file = join(home.path, 'vectors', 'coder.db')
    expect(handle.meta).toMatchObject({ store: 'coder', file, readOnly: false })
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(home.path, 'vectors')).mode & 0o777).toBe(0o700)
    expect(await vectors.collections()).toEqual([{ name: 'notes', dimension: 2, metric: 'l2', count: 3 }])
  })

  it('fixes the dimension at creation: a mismatch on upsert or search is refused and nothing is written', async () => {
    const { vectors } = await open()
    const mixed = await failure(
      vectors.upsert({
        collection: 'docs',
        items: [
          { id: 'a', vector: [1, 2, 3] },
          { id: 'b', vector: [1, 2] }
        ]
      })
    )
    expect(mixed).toMatchObject({
      code: 'vector_store.dimension_mismatch',
      message: expect.stringMatching(/^items\.1\.vector: has 2 dimensions; collection docs holds 3-dimension/)
    })
    // The failed call created nothing, not even the collection.
    expect(await vectors.collections()).toEqual([])
    await vectors.upsert({ collection: 'docs', items: [{ id: 'a', vector: [1, 2, 3] }] })
    expect(
      await failure(
        vectors.upsert({
          collection: 'docs',
          items: [
            { id: 'z', vector: [1, 2, 3] },
            { id: 'b', vector: [1, 2, 3, 4] }
          ]
        })
      )
    ).toMatchObject({ code: 'vector_store.dimension_mismatch' })
    expect(await failure(vectors.search({ collection: 'docs', vector: [1, 2], k: 1 }))).toMatchObject({
      code: 'vector_store.dimension_mismatch',
      message: expect.stringMatching(/^vector: has 2 dimensions/)
    })
    expect((await vectors.search({ collection: 'docs', vector: [1, 2, 3], k: 10 })).map((m) => m.id)).toEqual(['a'])
  })

  it('refuses bad names, ids, vectors and metadata, naming the field', async () => {
    const { vectors } = await open()
    const cases: [unknown, RegExp][] = [
      [{ collection: 'Bad Name', items: [{ id: 'a', vector: [1] }] }, /collection: must be a slug/],
      [{ collection: '../etc', items: [{ id: 'a', vector: [1] }] }, /collection: must be a slug/],
      [{ collection: 'ok', items: [{ id: '', vector: [1] }] }, /items\.0\.id: must not be empty/],
      [{ collection: 'ok', items: [{ id: 'x'.repeat(257), vector: [1] }] }, /items\.0\.id: must be at most 256 characters/],
      [{ collection: 'ok', items: [{ id: 'a', vector: [1, Number.NaN] }] }, /items\.0\.vector\.1:/],
      [{ collection: 'ok', items: [{ id: 'a', vector: [1e39] }] }, /items\.0\.vector\.0: must fit a 32-bit float/],
      [{ collection: 'ok', items: [{ id: 'a', vector: [] }] }, /items\.0\.vector: must have at least one dimension/],
      [{ collection: 'ok', items: [{ id: 'a', vector: new Array(4097).fill(0) }] }, /items\.0\.vector: must have at most 4096 dimensions/],
      [{ collection: 'ok', items: [{ id: 'a', vector: [1], metadata: [1, 2] }] }, /items\.0\.metadata:/],
      [{ collection: 'ok', items: [{ id: 'a', vector: [1], metadata: { text: 'x'.repeat(16 * 1024) } }] }, /items\.0\.metadata: must be at most 16384 bytes/],
      [
        {
          collection: 'ok',
          items: [
            { id: 'a', vector: [1] },
            { id: 'a', vector: [2] }
          ]
        },
        /items\.1\.id: duplicate id "a"/
      ],
      [{ collection: 'ok', items: [] }, /items:/]
    ]
    for (const [input, message] of cases) {
      expect(await failure(vectors.upsert(input as never))).toMatchObject({ code: 'vector_store.invalid_input', message: expect.stringMatching(message) })
    }
    expect(await vectors.collections()).toEqual([])
  })

  it('replaces an item on upsert by id: vector and metadata, whole', async () => {
    const { vectors } = await open()
    await vectors.upsert({
      collection: 'notes',
      items: [
        { id: 'a', vector: [0, 0], metadata: { v: 1, old: true } },
        { id: 'b', vector: [5, 5] }
      ]
    })
    const again = await vectors.upsert({ collection: 'notes', items: [{ id: 'a', vector: [10, 10], metadata: { v: 2 } }] })
    expect(again.created).toBe(false)
    expect(await vectors.search({ collection: 'notes', vector: [10, 10], k: 5 })).toEqual([
      { id: 'a', distance: 0, metadata: { v: 2 } },
      { id: 'b', distance: expect.closeTo(Math.sqrt(50), 5), metadata: {} }
    ])
    expect(await vectors.collections()).toMatchObject([{ name: 'notes', count: 2 }])
  })

  it('filters by equality on top-level metadata keys, by JSON type, before choosing the k nearest', async () => {
    const { vectors } = await open()
    await vectors.upsert({
      collection: 'docs',
      items: [
        { id: 'n1', vector: [0], metadata: { lang: 'en', n: 1, flag: true, gone: null } },
        { id: 'n2', vector: [1], metadata: { lang: 'de', n: '1', flag: 1 } },
        { id: 'n3', vector: [2], metadata: { lang: 'de', n: 1.5, nested: { lang: 'en' } } },
        { id: 'n4', vector: [50], metadata: { lang: 'en', n: 1, 'odd "key"': 'yes' } },
        { id: 'n5', vector: [60], metadata: { n: true, flag: 'true' } }
      ]
    })
    const ids = async (filter: Record<string, unknown>, k = 2) =>
      (await vectors.search({ collection: 'docs', vector: [0], k, filter: filter as never })).map((m) => m.id)
    // The two nearest overall are n1 and n2; with the filter the second match is far away, and still found.
    expect(await ids({ lang: 'en' })).toEqual(['n1', 'n4'])
    expect(await ids({ n: 1 }, 10)).toEqual(['n1', 'n4'])
    expect(await ids({ n: '1' }, 10)).toEqual(['n2'])
    expect(await ids({ flag: true }, 10)).toEqual(['n1'])
    expect(await ids({ n: true }, 10)).toEqual(['n5'])
    expect(await ids({ gone: null }, 10)).toEqual(['n1'])
    expect(await ids({ lang: 'de', n: 1.5 }, 10)).toEqual(['n3'])
    expect(await ids({ 'odd "key"': 'yes' }, 10)).toEqual(['n4'])
    expect(await ids({ missing: 'x' }, 10)).toEqual([])
    expect(await failure(ids({ lang: { $ne: 'en' } }))).toMatchObject({ code: 'vector_store.invalid_input', message: expect.stringMatching(/filter\.lang:/) })
  })

  it('bounds k to 1..100 and answers fewer when the collection is smaller', async () => {
    const { vectors } = await open()
    await vectors.upsert({ collection: 'c', items: Array.from({ length: 120 }, (_, i) => ({ id: `i${i}`, vector: [i] })) })
    expect(await vectors.search({ collection: 'c', vector: [0], k: 100 })).toHaveLength(100)
    expect(await failure(vectors.search({ collection: 'c', vector: [0], k: 101 }))).toMatchObject({
      code: 'vector_store.invalid_input',
      message: expect.stringMatching(/^Invalid vector store input: k:/)
    })
    expect(await failure(vectors.search({ collection: 'c', vector: [0], k: 0 }))).toMatchObject({ code: 'vector_store.invalid_input' })
    await vectors.upsert({ collection: 'small', items: [{ id: 'only', vector: [1] }] })
    expect(await vectors.search({ collection: 'small', vector: [0], k: 100 })).toEqual([{ id: 'only', distance: 1, metadata: {} }])
    expect(await failure(vectors.search({ collection: 'nope', vector: [0], k: 1 }))).toMatchObject({ code: 'vector_store.unknown_collection' })
  })

  it('deletes items by id and reports which existed', async () => {
    const { vectors } = await open()
    await vectors.upsert({
      collection: 'c',
      items: [
        { id: 'a', vector: [0] },
        { id: 'b', vector: [1] }
      ]
    })
    expect(await vectors.delete({ collection: 'c', ids: ['a', 'never'] })).toEqual({ deleted: ['a'] })
    expect(await vectors.search({ collection: 'c', vector: [0], k: 5 })).toEqual([{ id: 'b', distance: 1, metadata: {} }])
  })

  it('measures cosine distance when a collection is created so; the metric is fixed and a zero vector refused', async () => {
    const { vectors } = await open()
    await vectors.upsert({
      collection: 'cos',
      metric: 'cosine',
      items: [
        { id: 'same', vector: [2, 0] },
        { id: 'right', vector: [0, 3] }
      ]
    })
    const hits = await vectors.search({ collection: 'cos', vector: [1, 0], k: 2 })
    expect(hits.map((h) => [h.id, Number(h.distance.toFixed(5))])).toEqual([
      ['same', 0],
      ['right', 1]
    ])
    expect(await failure(vectors.upsert({ collection: 'cos', metric: 'l2', items: [{ id: 'x', vector: [1, 1] }] }))).toMatchObject({
      code: 'vector_store.metric_mismatch'
    })
    expect(await failure(vectors.search({ collection: 'cos', vector: [0, 0], k: 1 }))).toMatchObject({
      code: 'vector_store.invalid_input',
      message: expect.stringMatching(/zero vector/)
    })
  })

  it('keeps the data across release and reopen, and keeps stores apart', async () => {
    const first = await open('coder')
    await first.vectors.upsert({ collection: 'notes', items: [{ id: 'kept', vector: [1, 2], metadata: { why: 'reopen' } }] })
    await manager.release(first.handle)
    expect(manager.inspect(first.handle.handleId)).toBeUndefined()
    await expect(first.vectors.search({ collection: 'notes', vector: [1, 2], k: 1 })).rejects.toMatchObject({ code: 'vector_store.closed' })
    const again = await open('coder')
    expect(await again.vectors.search({ collection: 'notes', vector: [1, 2], k: 1 })).toEqual([{ id: 'kept', distance: 0, metadata: { why: 'reopen' } }])
    const other = await open('reviewer')
    await expect(other.vectors.search({ collection: 'notes', vector: [1, 2], k: 1 })).rejects.toMatchObject({ code: 'vector_store.unknown_collection' })
  })

  it('gives read-only handles when the policy says so: search works, writes are refused', async () => {
    const writer = await open('coder')
    await writer.vectors.upsert({ collection: 'c', items: [{ id: 'a', vector: [1] }] })
    const reader = await open('coder', { readOnly: true })
    expect(await reader.vectors.search({ collection: 'c', vector: [1], k: 1 })).toMatchObject([{ id: 'a' }])
    await expect(reader.vectors.upsert({ collection: 'c', items: [{ id: 'b', vector: [1] }] })).rejects.toMatchObject({ code: 'vector_store.read_only' })
    await expect(reader.vectors.delete({ collection: 'c', ids: ['a'] })).rejects.toMatchObject({ code: 'vector_store.read_only' })
  })

  it('refuses a file that is not a vector store and leaves it untouched', async () => {
    const dir = join(home.path, 'vectors')
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    writeFileSync(join(dir, 'text.db'), 'not a database at all, but long enough to have a header '.repeat(4))
    const plain = new Database(join(dir, 'plain.db'))
    plain.exec("create table vector_collections (x); create table vector_items (y); insert into vector_items values ('mine')")
    plain.close()
    // A foreign database left mid-transaction (a hot journal): opening it in SQLite would roll it back.
    const crash =
      "const db = new (require('better-sqlite3'))(process.argv[1]); db.exec('create table t (x)'); db.pragma('cache_size = 1'); db.exec('begin'); const s = db.prepare('insert into t values (?)'); for (let i = 0; i < 2000; i++) s.run('x'.repeat(500)); process.exit(0)"
    execFileSync(process.execPath, ['-e', crash, join(dir, 'hot.db')])
    expect(existsSync(join(dir, 'hot.db-journal'))).toBe(true)
    const outside = makeTempDir('airlock-vectors-outside-')
    try {
      const elsewhere = new VectorStoreProvider({ home: outside.path })
      const elsewhereManager = new ExecutionResourceManager().registerProvider(elsewhere)
      const real = await elsewhereManager.ensure({ kind: 'vector_store', config: { store: 'real' } })
      await elsewhereManager.release(real)
      symlinkSync(join(outside.path, 'vectors', 'real.db'), join(dir, 'link.db'))
      mkdirSync(join(dir, 'folder.db'))
      const before = new Map(['text.db', 'plain.db', 'hot.db', 'hot.db-journal'].map((name) => [name, readFileSync(join(dir, name))]))
      for (const [store, why] of [
        ['text', /not a SQLite database/],
        ['plain', /application id is 0/],
        ['hot', /application id is 0, not Airlock's/],
        ['link', /symbolic link/],
        ['folder', /not a regular file/]
      ] as const) {
        const error = await failure(open(store))
        expect(error).toMatchObject({ code: 'vector_store.not_a_vector_store', message: expect.stringMatching(why) })
      }
      for (const [name, bytes] of before) {
        expect(readFileSync(join(dir, name)).equals(bytes)).toBe(true)
      }
      for (const name of ['text.db', 'plain.db', 'hot.db']) expect(existsSync(join(dir, `${name}-wal`))).toBe(false)
    } finally {
      outside.remove()
    }
  })

  it('refuses a store of a newer format', async () => {
    const first = await open('coder')
    await manager.release(first.handle)
    const db = new Database(join(home.path, 'vectors', 'coder.db'))
    db.pragma('user_version = 2')
    db.close()
    expect(await failure(open('coder'))).toMatchObject({ code: 'vector_store.not_a_vector_store', message: expect.stringMatching(/format 2/) })
  })

  it('probes sqlite-vec and reports its version; a config that names a path is refused', async () => {
    const provider = new VectorStoreProvider({ home: home.path })
    const probe = await provider.probe({
      requirement: { kind: 'vector_store', requirementId: 'r', scope: 'action_call', resourceKey: 'vector_store', config: { store: 'coder' } },
      policy: {}
    })
    expect(probe).toMatchObject({
      available: true,
      capabilities: { engine: 'sqlite-vec', version: expect.stringMatching(/^v\d+\.\d+\.\d+/), maxK: 100, maxDimensions: 4096 }
    })
    for (const store of ['../escape', '/etc/passwd', 'UPPER']) {
      await expect(manager.ensure({ kind: 'vector_store', config: { store } })).rejects.toMatchObject({
        code: 'execution_resource.provider_unavailable',
        message: expect.stringMatching(/invalid vector_store config: store must be a slug/)
      })
    }
    await expect(manager.ensure({ kind: 'vector_store', config: { store: 'a', path: '/tmp/x.db' } })).rejects.toMatchObject({
      code: 'execution_resource.provider_unavailable'
    })
  })

  it('is healthy while open and closes the database on release', async () => {
    const provider = new VectorStoreProvider({ home: home.path })
    const { handle } = await open()
    expect(await provider.healthCheck(handle)).toBe('ready')
    await provider.release(handle)
    expect(await provider.healthCheck(handle)).toBe('unhealthy')
  })
})
