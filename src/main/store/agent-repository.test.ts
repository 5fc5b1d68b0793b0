import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../test/support/temp-home'
import { openStore, type AgentRecord, type Store } from '.'

let dir: ReturnType<typeof makeTempDir>
let store: Store
beforeEach(() => {
  dir = makeTempDir()
  store = openStore(join(dir.path, 'airlock.db'))
})
afterEach(() => {
  store.close()
  dir.remove()
})

const agent = (id: string, extra: Partial<AgentRecord> = {}): AgentRecord => ({
  id,
  name: id,
  roleId: null,
  tokenHash: 'ab'.repeat(32),
  enabled: true,
  profile: { network: 'none' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...extra
})

describe('AgentRepository', () => {
  it('inserts once per id and reads the record back', () => {
    expect(store.agents.insert(agent('a'))).toBe(true)
    expect(store.agents.insert(agent('a', { name: 'other' }))).toBe(false)
    expect(store.agents.get('a')).toEqual(agent('a'))
    expect(store.agents.get('b')).toBeUndefined()
  })

  it('updates only the columns given', () => {
    store.agents.insert(agent('a'))
    expect(store.agents.update('a', { enabled: false, profile: { ask: 'always' }, updatedAt: 'later' })).toBe(true)
    expect(store.agents.get('a')).toEqual(agent('a', { enabled: false, profile: { ask: 'always' }, updatedAt: 'later' }))
    expect(store.agents.update('zz', { name: 'x', updatedAt: 'later' })).toBe(false)
  })

  it('a transaction that throws leaves nothing behind', () => {
    expect(() =>
      store.agents.transaction(() => {
        store.agents.insert(agent('a'))
        throw new Error('workspace failed')
      })
    ).toThrow('workspace failed')
    expect(store.agents.list()).toEqual([])
  })

  it('a hand-broken profile column reads as undefined (the service reports it)', () => {
    store.agents.insert(agent('a'))
    store.db.prepare("update agents set profile_json = '{' where id = 'a'").run()
    expect(store.agents.get('a')?.profile).toBeUndefined()
  })
})

describe('RoleRepository', () => {
  it('saves, counts the agents of a role, and refuses an agent naming a missing role', () => {
    store.roles.save({ id: 'ci', name: 'CI', defaults: { network: 'proxy' }, at: '2026-01-01T00:00:00.000Z' })
    store.agents.insert(agent('a', { roleId: 'ci' }))
    expect(store.roles.list()).toEqual([{ id: 'ci', name: 'CI', defaults: { network: 'proxy' }, createdAt: '2026-01-01T00:00:00.000Z', agentCount: 1 }])
    store.roles.save({ id: 'ci', name: 'CI 2', defaults: {}, at: 'later' })
    expect(store.roles.get('ci')).toMatchObject({ name: 'CI 2', createdAt: '2026-01-01T00:00:00.000Z' })
    expect(store.agents.listByRole('ci').map((a) => a.id)).toEqual(['a'])
    expect(() => store.agents.insert(agent('b', { roleId: 'nope' }))).toThrow(/FOREIGN KEY/)
  })
})
