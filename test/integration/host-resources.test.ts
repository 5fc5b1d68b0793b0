import { existsSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ScratchDirectoryProvider, type ScratchDirectory } from '../../examples/scratch-directory-provider'
import { createHost, type Host } from '../../src/main/host'
import { openStore } from '../../src/main/store'
import { makeTempDir } from '../support/temp-home'

let dir: ReturnType<typeof makeTempDir>
let host: Host
beforeEach(() => {
  dir = makeTempDir()
  host = createHost({ home: dir.path })
  host.resources.registerProvider(new ScratchDirectoryProvider())
})
afterEach(async () => {
  await host.dispose()
  dir.remove()
})

const ctx = { transport: 'websocket' as const }

/** The first pending item of the queue, once the request reached it. */
async function waitForItem() {
  for (let tries = 0; tries < 500; tries++) {
    const [item] = host.approvals.list()
    if (item) return item
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error('no approval item appeared')
}

describe('the host wires the resource manager to the store and the console', () => {
  it('mirrors handles into SQLite and records every event in the audit log', async () => {
    const handle = await host.resources.ensure({ kind: 'scratch_directory', scope: 'session', ownerId: 's1', config: { prefix: 'host' } })
    expect(host.store.handles.list()).toMatchObject([{ handleId: handle.handleId, status: 'ready', refCount: 1, providerId: 'scratch_directory' }])
    await host.resources.release(handle)
    expect(host.store.handles.list()).toEqual([])
    const types = host.store.events
      .recent({ prefixes: ['execution_resource.'] })
      .map((e) => e.type)
      .reverse()
    expect(types).toEqual([
      'execution_resource.declared',
      'execution_resource.ensuring',
      'execution_resource.ready',
      'execution_resource.releasing',
      'execution_resource.released'
    ])
  })

  it("a requirement that needs approval waits in the operator's queue (the default handler): denied, nothing starts", async () => {
    expect(host.resources.approval.defaultHandlerName).toBe('console')
    const ensuring = host.resources.ensure({ kind: 'scratch_directory', approvalRequired: true }).catch((e: { code?: string }) => e)
    const item = await waitForItem()
    expect(item).toMatchObject({ kind: 'resource', tool: 'scratch_directory', status: 'pending', agentId: null })
    host.approvals.decide({ id: item.id, decision: 'deny', reason: 'no scratch today' })
    expect(await ensuring).toMatchObject({ code: 'execution_resource.approval_denied', message: expect.stringContaining('no scratch today') })
    expect(host.resources.list()).toEqual([])
  })

  it('serves live handles, health and release over the contract, never the live resource', async () => {
    const pushed: string[] = []
    host.events.subscribe((channel, payload) => pushed.push(`${channel}:${(payload as { type: string }).type}`))
    const handle = await host.resources.ensure({ kind: 'scratch_directory', scope: 'agent', ownerId: 'a1' })
    await host.resources.ensure({ kind: 'scratch_directory', scope: 'agent', ownerId: 'a1' })
    const listed = await host.dispatch('airlock:resources:list', {}, ctx)
    expect(listed).toMatchObject({ ok: true, value: [{ handleId: handle.handleId, refCount: 2, scope: 'agent', ownerId: 'a1' }] })
    expect(JSON.stringify(listed)).not.toContain((handle.resource as ScratchDirectory).path + '"}')
    expect(await host.dispatch('airlock:resources:checkHealth', { handleId: handle.handleId }, ctx)).toEqual({ ok: true, value: { status: 'ready' } })
    expect(await host.dispatch('airlock:resources:release', { handleId: handle.handleId }, ctx)).toEqual({ ok: true, value: { released: true } })
    expect(existsSync((handle.resource as ScratchDirectory).path)).toBe(false)
    expect(await host.dispatch('airlock:resources:release', { handleId: handle.handleId }, ctx)).toEqual({ ok: true, value: { released: false } })
    expect(await host.dispatch('airlock:resources:checkHealth', { handleId: handle.handleId }, ctx)).toMatchObject({
      ok: false,
      error: { code: 'ipc.not_found' }
    })
    const recent = await host.dispatch('airlock:resources:recentEvents', { limit: 3 }, ctx)
    expect(recent).toMatchObject({ ok: true, value: [{ type: 'execution_resource.released' }, { type: 'execution_resource.releasing' }, {}] })
    expect(pushed).toContain('airlock:resources:event:execution_resource.ready')
  })

  it('releases every live resource when the host is disposed', async () => {
    const handle = await host.resources.ensure({ kind: 'scratch_directory', scope: 'global' })
    const path = (handle.resource as ScratchDirectory).path
    await host.dispose()
    expect(existsSync(path)).toBe(false)
    const store = openStore(host.paths.database)
    expect(store.handles.list()).toEqual([])
    store.close()
    host = createHost({ home: dir.path })
  })
})

describe('start-up recovery', () => {
  it('clears handles a crashed run left in the store and records it in the audit log', async () => {
    const dir2 = makeTempDir()
    const first = createHost({ home: dir2.path })
    first.store.handles.save({
      handleId: 'left-behind',
      requirementId: 'r',
      kind: 'code_execution',
      scope: 'session',
      ownerId: 's-crashed',
      resourceKey: 'code_execution',
      providerId: 'bubblewrap',
      status: 'ready',
      refCount: 1,
      policy: {},
      meta: {},
      createdAt: new Date().toISOString()
    })
    // Simulate a crash: the store closes without the manager releasing anything.
    first.store.close()
    const second = createHost({ home: dir2.path })
    try {
      await second.recovered
      expect(second.store.handles.list()).toEqual([])
      expect(second.store.events.recent({ prefixes: ['execution_resource.recovered'] })).toMatchObject([
        { payload: { handles: [{ handleId: 'left-behind', providerId: 'bubblewrap', ownerId: 's-crashed' }] } }
      ])
    } finally {
      await second.dispose()
      dir2.remove()
    }
  })
})
