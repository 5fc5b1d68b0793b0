import { describe, expect, it } from 'vitest'
import { SessionEventStore } from './session-events'

const message = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/progress', params: { progressToken: 1, progress: n } })

describe('SessionEventStore (what a resuming client is sent)', () => {
  it('replays what came after an id, on that stream only', async () => {
    const store = new SessionEventStore()
    const a1 = await store.storeEvent('a', message(1))
    await store.storeEvent('b', message(2))
    await store.storeEvent('a', message(3))
    const sent: unknown[] = []
    expect(await store.replayEventsAfter(a1, { send: async (_id, m) => void sent.push(m) })).toBe('a')
    expect(sent).toEqual([message(3)])
    expect(await store.getStreamIdForEventId(a1)).toBe('a')
  })

  it('stays bounded under 10 000 events: the oldest are dropped, and a resume from one of them is told so', async () => {
    const store = new SessionEventStore({ events: 2000, bytes: 8 * 1024 * 1024 })
    const first = await store.storeEvent('s', message(0))
    let last = first
    for (let i = 1; i < 10_000; i++) last = await store.storeEvent('s', message(i))
    expect(store.size().events).toBe(2000)
    expect(store.lookup(first)).toEqual({ found: false, reason: 'dropped' })
    expect(store.lookup(last)).toEqual({ found: true })
    expect(await store.getStreamIdForEventId(first)).toBeUndefined()
  })

  it('bounds bytes too (a few large results), and refuses ids that are not its own', async () => {
    const store = new SessionEventStore({ events: 2000, bytes: 1024 * 1024 })
    const big = { jsonrpc: '2.0' as const, id: 1, result: { text: 'x'.repeat(400 * 1024) } }
    for (let i = 0; i < 5; i++) await store.storeEvent('s', big)
    expect(store.size().bytes).toBeLessThanOrEqual(1024 * 1024)
    const other = new SessionEventStore()
    const foreign = await other.storeEvent('s', message(1))
    expect(store.lookup(foreign)).toEqual({ found: false, reason: 'unknown' })
    expect(store.lookup('garbage')).toEqual({ found: false, reason: 'unknown' })
    await expect(store.replayEventsAfter(foreign, { send: async () => undefined })).rejects.toThrow(/unknown event id/)
  })

  it('knows when a stream has ended (every request of its POST answered): only then is a resume a finite replay', async () => {
    const store = new SessionEventStore()
    store.expect([1, '1'])
    const priming = await store.storeEvent('s', {} as never)
    await store.storeEvent('s', message(1))
    expect(store.endedStreamAfter(priming)).toBeUndefined()
    await store.storeEvent('s', { jsonrpc: '2.0', id: 1, result: {} })
    // `"1"` is another request than `1`: still running.
    expect(store.endedStreamAfter(priming)).toBeUndefined()
    const last = await store.storeEvent('s', { jsonrpc: '2.0', id: '1', error: { code: -32020, message: 'too many' } })
    expect(store.endedStreamAfter(priming)?.map((event) => event.message)).toEqual([
      message(1),
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: '1', error: { code: -32020, message: 'too many' } }
    ])
    expect(store.endedStreamAfter(last)).toEqual([])
    expect(store.endedStreamAfter('garbage')).toBeUndefined()
  })
})
