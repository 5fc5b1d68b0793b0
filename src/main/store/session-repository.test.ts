import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../test/support/temp-home'
import { openStore, SessionRepository, type Store } from '.'

let dir: ReturnType<typeof makeTempDir>
let store: Store
let time: number
let sessions: SessionRepository
const file = () => join(dir.path, 'airlock.db')

beforeEach(() => {
  dir = makeTempDir()
  store = openStore(file())
  time = Date.parse('2026-01-01T00:00:00.000Z')
  sessions = new SessionRepository(store.db, () => new Date(time))
  const at = new Date(time).toISOString()
  for (const id of ['a', 'b'])
    store.agents.insert({ id, name: id, roleId: null, tokenHash: '0'.repeat(64), enabled: true, profile: {}, createdAt: at, updatedAt: at })
})
afterEach(() => {
  store.close()
  dir.remove()
})

describe('SessionRepository', () => {
  it('records start, last seen and end with its reason', () => {
    const id = sessions.start('a', 'mcp-http')
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    time += 5000
    sessions.touch(id)
    time += 5000
    expect(sessions.end(id, 'closed')).toBe(true)
    expect(sessions.get(id)).toEqual({
      id,
      agentId: 'a',
      transport: 'mcp-http',
      taint: 'PUBLIC',
      startedAt: '2026-01-01T00:00:00.000Z',
      lastSeenAt: '2026-01-01T00:00:05.000Z',
      endedAt: '2026-01-01T00:00:10.000Z',
      endReason: 'closed'
    })
  })

  it('ending twice keeps the first end; touching an ended session changes nothing', () => {
    const id = sessions.start('a', 'stdio')
    sessions.end(id, 'closed')
    time += 1000
    expect(sessions.end(id, 'shutdown')).toBe(false)
    sessions.touch(id)
    expect(sessions.get(id)).toMatchObject({ endReason: 'closed', endedAt: '2026-01-01T00:00:00.000Z', lastSeenAt: '2026-01-01T00:00:00.000Z' })
  })

  it('refuses a session for an agent that does not exist', () => {
    expect(() => sessions.start('ghost', 'stdio')).toThrow(expect.objectContaining({ code: 'session.agent_not_found' }))
  })

  it('lists an agent sessions newest first, bounded', () => {
    const ids = [0, 1, 2].map((n) => ((time += 1000), sessions.start('a', `t${n}`)))
    sessions.start('b', 'other')
    expect(sessions.listByAgent('a').map((s) => s.id)).toEqual(ids.reverse())
    expect(sessions.listByAgent('a', { limit: 1 })).toHaveLength(1)
    expect(sessions.listByAgent('nobody')).toEqual([])
  })

  it('after a crash, the next start ends what was left open as interrupted, and only that', () => {
    const done = sessions.start('a', 'stdio')
    sessions.end(done, 'closed')
    const open = [sessions.start('a', 'stdio'), sessions.start('b', 'mcp-http')]
    store.close()
    store = openStore(file())
    const restarted = new SessionRepository(store.db, () => new Date(Date.parse('2026-01-02T00:00:00.000Z')))
    expect(restarted.endInterrupted()).toBe(2)
    for (const id of open) expect(restarted.get(id)).toMatchObject({ endReason: 'interrupted', endedAt: '2026-01-02T00:00:00.000Z' })
    expect(restarted.get(done)).toMatchObject({ endReason: 'closed' })
    expect(restarted.endInterrupted()).toBe(0)
  })

  it('removing an agent removes its sessions', () => {
    const id = sessions.start('a', 'stdio')
    store.agents.delete('a')
    expect(sessions.get(id)).toBeUndefined()
  })
})
