import type { ResourceEventView } from '@shared/ipc'
import type { ResourceHandleView } from '@shared/resources'
import { fail, ok } from '@shared/result'
import { describe, expect, it } from 'vitest'
import type { ResourcesClient } from './client'
import { createResourcesStore } from './resources-state'

const handle = (handleId: string): ResourceHandleView => ({
  handleId,
  requirementId: `r-${handleId}`,
  kind: 'scratch_directory',
  scope: 'session',
  ownerId: 'session-42',
  resourceKey: 'k',
  providerId: 'scratch',
  status: 'ready',
  refCount: 2,
  policy: {},
  meta: {},
  createdAt: '2026-01-01T00:00:00Z'
})
const event = (type: string, n: number): ResourceEventView => ({ type, payload: { n }, at: `2026-01-01T00:00:0${n}Z` })

// A stand-in for the host at the contract boundary: live handles that release can end (or refuse to).
function fakeHost(options: { refuse?: string } = {}) {
  let live = [handle('h1'), handle('h2')]
  const client = {
    resources: {
      list: async () => ok(live),
      release: async ({ handleId }: { handleId: string }) => {
        if (options.refuse) return fail('release_failed', options.refuse)
        const found = live.some((h) => h.handleId === handleId)
        live = live.filter((h) => h.handleId !== handleId)
        return ok({ released: found })
      },
      checkHealth: async () => ok({ status: 'ready' as const }),
      recentEvents: async () => ok([event('execution_resource.ready', 2), event('execution_resource.declared', 1)])
    }
  } as unknown as ResourcesClient
  return client
}

describe('resources store', () => {
  it('releases a handle and shows the list the host has after it', async () => {
    const store = createResourcesStore(fakeHost())
    await store.getState().loadHandles()
    expect(store.getState().handles.map((h) => h.handleId)).toEqual(['h1', 'h2'])
    expect(await store.getState().release('h1')).toBe(true)
    expect(store.getState().handles.map((h) => h.handleId)).toEqual(['h2'])
    expect(store.getState().releasing).toEqual({})
  })

  it("shows the host's message when a release fails, and when the handle was already gone", async () => {
    const refusing = createResourcesStore(fakeHost({ refuse: 'the provider could not remove the container' }))
    expect(await refusing.getState().release('h1')).toBe(false)
    expect(refusing.getState().handlesError).toBe('Could not release h1: the provider could not remove the container')
    const store = createResourcesStore(fakeHost())
    expect(await store.getState().release('nope')).toBe(false)
    expect(store.getState().handlesError).toBe('nope was already gone.')
  })

  it('holds events aside while paused and shows them, newest first, on resume', async () => {
    const store = createResourcesStore(fakeHost())
    await store.getState().loadEvents()
    store.getState().receive(event('execution_resource.releasing', 3))
    store.getState().setPaused(true)
    store.getState().receive(event('execution_resource.released', 4))
    store.getState().receive(event('execution_resource.declared', 5))
    expect(store.getState().events.map((e) => e.payload.n)).toEqual([3, 2, 1])
    expect(store.getState().held).toHaveLength(2)
    store.getState().setPaused(false)
    expect(store.getState().events.map((e) => e.payload.n)).toEqual([5, 4, 3, 2, 1])
    expect(store.getState().held).toEqual([])
  })

  it('keeps events pushed before the first page answered, without duplicates', async () => {
    const store = createResourcesStore(fakeHost())
    store.getState().receive(event('execution_resource.ready', 2))
    store.getState().receive(event('execution_resource.released', 3))
    await store.getState().loadEvents()
    expect(store.getState().events.map((e) => e.payload.n)).toEqual([3, 2, 1])
  })
})
