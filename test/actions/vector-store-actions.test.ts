import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { agentProfileDefaults } from '@shared/agents'
import { makeTempDir } from '../support/temp-home'
import { createVectorSearchAction, vectorSearchAction } from '../../src/main/actions/vector_search'
import { createVectorUpsertAction, vectorUpsertAction } from '../../src/main/actions/vector_upsert'
import {
  ActionDispatcher,
  ActionRegistry,
  claimWorkspace,
  ExecutionResourceManager,
  type ActionAgent,
  type ActionCallEnd,
  type ActionHistory
} from '../../src/main/core'
import type { Embedder } from '../../src/main/core/live-resources/vector'
import { VectorStoreProvider } from '../../src/main/providers/vector-store/vector-store-provider'

// vector_upsert and vector_search end to end through real parts: the dispatcher, the registry,
// the manager, and the vector_store provider on a real SQLite file with sqlite-vec. (Here, not
// beside the actions, because actions may not import a provider.)

let home: ReturnType<typeof makeTempDir>
let manager: ExecutionResourceManager
let registry: ActionRegistry
let dispatcher: ActionDispatcher
let ends: ActionCallEnd[]

beforeEach(() => {
  home = makeTempDir('airlock-vector-actions-', { outsideTmp: true })
  manager = new ExecutionResourceManager().registerProvider(new VectorStoreProvider({ home: home.path }))
  registry = new ActionRegistry()
  ends = []
  const history: ActionHistory = { begin: () => undefined, finish: (end) => void ends.push(end) }
  dispatcher = new ActionDispatcher({ manager, registry, history })
})
afterEach(async () => {
  await manager.releaseAll()
  home.remove()
})

function agent(agentId = 'coder'): ActionAgent {
  const workspace = join(home.path, 'workspaces', agentId)
  claimWorkspace(workspace)
  return { agentId, sessionId: `${agentId}-session`, workspace, profile: agentProfileDefaults, tools: new Set(['vector_upsert', 'vector_search']) }
}

/** An embedder with a fixed answer per text: the operator-configured seam (SPEC §5.3), not what is under test. */
function tableEmbedder(table: Record<string, number[]>): Embedder {
  return { id: 'test:table', embed: async (texts) => texts.map((text) => table[text] ?? []) }
}

function call(who: ActionAgent, tool: 'vector_upsert' | 'vector_search', input: unknown) {
  return dispatcher.execute({ tool, agent: who, input })
}

describe('vector_upsert', () => {
  beforeEach(() => {
    registry.register(vectorSearchAction)
  })

  it("writes into the agent's own store under <home>/vectors, not its workspace, and releases the handle", async () => {
    registry.register(vectorUpsertAction)
    const coder = agent()
    const result = await call(coder, 'vector_upsert', {
      collection: 'notes',
      items: [
        { id: 'a', vector: [0, 1], metadata: { topic: 'build' } },
        { id: 'b', vector: [1, 0] }
      ]
    })
    expect(result).toMatchObject({
      ok: true,
      status: 'success',
      data: { ids: ['a', 'b'] },
      meta: {
        provider: { providerId: 'vector_store', store: 'coder', readOnly: false },
        vectorStore: { collection: 'notes', created: true, dimension: 2, metric: 'l2' }
      }
    })
    expect(existsSync(join(home.path, 'vectors', 'coder.db'))).toBe(true)
    expect(readdirSync(coder.workspace)).toEqual([])
    expect(manager.list()).toEqual([])
    expect(ends).toMatchObject([{ status: 'success', resultSummary: { ids: ['a', 'b'] } }])

    expect(await call(coder, 'vector_upsert', { collection: 'notes', items: [{ id: 'a', vector: [5, 5] }] })).toMatchObject({
      status: 'success',
      meta: { vectorStore: { created: false } }
    })
    expect((await call(coder, 'vector_search', { collection: 'notes', vector: [5, 5], k: 1 })).data).toEqual({
      items: [{ id: 'a', distance: 0, metadata: {} }]
    })
  })

  it('refuses input the schema does not admit, naming the field, before opening anything', async () => {
    registry.register(vectorUpsertAction)
    const coder = agent()
    const cases: [unknown, RegExp][] = [
      [{ collection: 'notes', items: [{ id: 'a', vector: [1], text: 'both' }] }, /items\.0\.vector: give exactly one of vector or text/],
      [{ collection: 'notes', items: [{ id: 'a' }] }, /items\.0\.vector: give exactly one of vector or text/],
      [{ collection: 'No Slug', items: [{ id: 'a', vector: [1] }] }, /collection: must be a slug/],
      [{ collection: 'notes', items: [{ id: 'a', vector: [1], extra: true }] }, /items\.0/],
      [{ collection: 'notes', items: Array.from({ length: 501 }, (_, i) => ({ id: `${i}`, vector: [i] })) }, /items:/]
    ]
    for (const [input, message] of cases) {
      expect(await call(coder, 'vector_upsert', input)).toMatchObject({
        ok: false,
        status: 'error',
        error: { code: 'invalid_input', message: expect.stringMatching(message) }
      })
    }
    expect(existsSync(join(home.path, 'vectors'))).toBe(false)
  })

  it('fails text items with vector_store.no_embedder when no embedder is configured, writing nothing', async () => {
    registry.register(vectorUpsertAction)
    const coder = agent()
    const result = await call(coder, 'vector_upsert', { collection: 'notes', items: [{ id: 'a', text: 'hello' }] })
    expect(result).toMatchObject({
      ok: false,
      status: 'error',
      error: { code: 'vector_store.no_embedder', message: expect.stringMatching(/give a vector instead of text/) }
    })
    expect((await call(coder, 'vector_search', { collection: 'notes', vector: [1], k: 1 })).error?.code).toBe('vector_store.unknown_collection')
  })

  it('embeds text items through a configured embedder and checks what it returns', async () => {
    registry.register(createVectorUpsertAction({ embedder: tableEmbedder({ hello: [1, 0], world: [0, 1], broken: [Number.NaN, 1] }) }))
    const coder = agent()
    const result = await call(coder, 'vector_upsert', {
      collection: 'words',
      items: [
        { id: 'h', text: 'hello' },
        { id: 'v', vector: [1, 1] },
        { id: 'w', text: 'world' }
      ]
    })
    expect(result).toMatchObject({ status: 'success', data: { ids: ['h', 'v', 'w'] }, meta: { vectorStore: { embedder: 'test:table' } } })
    expect((await call(coder, 'vector_search', { collection: 'words', vector: [0, 1], k: 1 })).data).toEqual({
      items: [{ id: 'w', distance: 0, metadata: {} }]
    })
    for (const [text, field] of [
      ['broken', /vectors\.0\.0:/],
      ['unknown', /vectors\.0: must have at least one dimension/]
    ] as const) {
      const bad = await call(coder, 'vector_upsert', { collection: 'words', items: [{ id: 'x', text }] })
      expect(bad).toMatchObject({ status: 'error', error: { code: 'vector_store.embedder_failed', message: expect.stringMatching(field) } })
    }
  })

  it('runs concurrent calls of one agent on their own connections without losing a write', async () => {
    registry.register(vectorUpsertAction)
    const coder = agent()
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(coder, 'vector_upsert', { collection: 'busy', items: [{ id: `item-${i}`, vector: [i, 1] }] }))
    )
    expect(results.map((result) => result.status)).toEqual(new Array(8).fill('success'))
    const found = await call(coder, 'vector_search', { collection: 'busy', vector: [0, 1], k: 100 })
    expect((found.data as { items: { id: string }[] }).items.map((item) => item.id)).toEqual(Array.from({ length: 8 }, (_, i) => `item-${i}`))
    expect(manager.list()).toEqual([])
  })

  it("reports the store's refusals with their codes: dimension mismatch, duplicate ids", async () => {
    registry.register(vectorUpsertAction)
    const coder = agent()
    await call(coder, 'vector_upsert', { collection: 'notes', items: [{ id: 'a', vector: [1, 2, 3] }] })
    expect(await call(coder, 'vector_upsert', { collection: 'notes', items: [{ id: 'b', vector: [1, 2] }] })).toMatchObject({
      status: 'error',
      error: {
        code: 'vector_store.dimension_mismatch',
        message: expect.stringMatching(/^items\.0\.vector: has 2 dimensions; collection notes holds 3-dimension vectors/)
      }
    })
    expect(
      await call(coder, 'vector_upsert', {
        collection: 'notes',
        items: [
          { id: 'b', vector: [1, 2, 3] },
          { id: 'b', vector: [3, 2, 1] }
        ]
      })
    ).toMatchObject({
      status: 'error',
      error: { code: 'vector_store.invalid_input', message: expect.stringMatching(/items\.1\.id: duplicate id "b"/) }
    })
    expect(manager.list()).toEqual([])
  })
})

describe('vector_search', () => {
  beforeEach(() => {
    registry.register(vectorUpsertAction)
  })

  async function seed(who: ActionAgent) {
    const items = Array.from({ length: 12 }, (_, i) => ({ id: `doc-${i}`, vector: [i, 0], metadata: { parity: i % 2 === 0 ? 'even' : 'odd', i } }))
    expect(await call(who, 'vector_upsert', { collection: 'docs', items })).toMatchObject({ status: 'success' })
  }

  it('answers the nearest items with distance and metadata, k defaulting to 10, through a read-only handle', async () => {
    registry.register(vectorSearchAction)
    const coder = agent()
    await seed(coder)
    const nearest = await call(coder, 'vector_search', { collection: 'docs', vector: [3, 0], k: 3 })
    expect(nearest).toMatchObject({ ok: true, meta: { provider: { providerId: 'vector_store', store: 'coder', readOnly: true } } })
    expect(nearest.data).toEqual({
      items: [
        { id: 'doc-3', distance: 0, metadata: { parity: 'odd', i: 3 } },
        { id: 'doc-2', distance: 1, metadata: { parity: 'even', i: 2 } },
        { id: 'doc-4', distance: 1, metadata: { parity: 'even', i: 4 } }
      ]
    })
    const all = await call(coder, 'vector_search', { collection: 'docs', vector: [0, 0] })
    expect((all.data as { items: unknown[] }).items).toHaveLength(10)
    expect(manager.list()).toEqual([])
  })

  it('filters on top-level metadata before taking the k nearest', async () => {
    registry.register(vectorSearchAction)
    const coder = agent()
    await seed(coder)
    const odd = await call(coder, 'vector_search', { collection: 'docs', vector: [0, 0], k: 3, filter: { parity: 'odd' } })
    expect((odd.data as { items: { id: string }[] }).items.map((item) => item.id)).toEqual(['doc-1', 'doc-3', 'doc-5'])
    const exact = await call(coder, 'vector_search', { collection: 'docs', vector: [0, 0], k: 5, filter: { parity: 'even', i: 10 } })
    expect((exact.data as { items: { id: string }[] }).items.map((item) => item.id)).toEqual(['doc-10'])
    expect(await call(coder, 'vector_search', { collection: 'docs', vector: [0, 0], filter: { parity: ['odd'] } })).toMatchObject({
      status: 'error',
      error: { code: 'invalid_input', message: expect.stringMatching(/filter\.parity/) }
    })
  })

  it("keeps agents apart: one agent's collections are not another's", async () => {
    registry.register(vectorSearchAction)
    await seed(agent('coder'))
    const reviewer = agent('reviewer')
    expect(await call(reviewer, 'vector_search', { collection: 'docs', vector: [0, 0] })).toMatchObject({
      status: 'error',
      error: { code: 'vector_store.unknown_collection' }
    })
    expect(
      readdirSync(join(home.path, 'vectors'))
        .filter((name) => name.endsWith('.db'))
        .sort()
    ).toEqual(['coder.db', 'reviewer.db'])
  })

  it('bounds k and needs a vector unless an embedder is configured', async () => {
    registry.register(vectorSearchAction)
    const coder = agent()
    await seed(coder)
    expect(await call(coder, 'vector_search', { collection: 'docs', vector: [0, 0], k: 101 })).toMatchObject({
      status: 'error',
      error: { code: 'invalid_input', message: expect.stringMatching(/k: Too big/) }
    })
    expect(await call(coder, 'vector_search', { collection: 'docs', text: 'three' })).toMatchObject({
      status: 'error',
      error: { code: 'vector_store.no_embedder', message: expect.stringMatching(/give a vector instead of text/) }
    })
    expect(await call(coder, 'vector_search', { collection: 'docs', vector: [0, 0], text: 'three' })).toMatchObject({
      error: { code: 'invalid_input', message: expect.stringMatching(/vector: give exactly one of vector or text/) }
    })
  })

  it('embeds a text query through a configured embedder', async () => {
    registry.register(createVectorSearchAction({ embedder: tableEmbedder({ three: [3, 0] }) }))
    const coder = agent()
    await seed(coder)
    const result = await call(coder, 'vector_search', { collection: 'docs', text: 'three', k: 1 })
    expect(result).toMatchObject({ status: 'success', data: { items: [{ id: 'doc-3', distance: 0 }] }, meta: { vectorStore: { embedder: 'test:table' } } })
  })
})
