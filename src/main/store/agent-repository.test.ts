import { describe, expect, it } from 'vitest'
import { type AgentRecord } from '.'
import { storeEachTest } from '../../../test/support/temp-store'
const fresh = storeEachTest()

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
    expect(fresh.store.agents.insert(agent('a'))).toBe(true)
    expect(fresh.store.agents.insert(agent('a', { name: 'other' }))).toBe(false)
    expect(fresh.store.agents.get('a')).toEqual(agent('a'))
    expect(fresh.store.agents.get('b')).toBeUndefined()
  })

  it('updates only the columns given', () => {
    fresh.store.agents.insert(agent('a'))
    expect(fresh.store.agents.update('a', { enabled: false, profile: { ask: 'always' }, updatedAt: 'later' })).toBe(true)
    expect(fresh.store.agents.get('a')).toEqual(agent('a', { enabled: false, profile: { ask: 'always' }, updatedAt: 'later' }))
    expect(fresh.store.agents.update('zz', { name: 'x', updatedAt: 'later' })).toBe(false)
  })

  it('a transaction that throws leaves nothing behind', () => {
    expect(() =>
      fresh.store.agents.transaction(() => {
        fresh.store.agents.insert(agent('a'))
        throw new Error('workspace failed')
      })
    ).toThrow('workspace failed')
    expect(fresh.store.agents.list()).toEqual([])
  })

  it('a hand-broken profile column reads as undefined (the service reports it)', () => {
    fresh.store.agents.insert(agent('a'))
    fresh.store.db.prepare("update agents set profile_json = '{' where id = 'a'").run()
    expect(fresh.store.agents.get('a')?.profile).toBeUndefined()
  })
})

describe('RoleRepository', () => {
  it('saves, counts the agents of a role, and refuses an agent naming a missing role', () => {
    fresh.store.roles.save({ id: 'ci', name: 'CI', defaults: { network: 'proxy' }, at: '2026-01-01T00:00:00.000Z' })
    fresh.store.agents.insert(agent('a', { roleId: 'ci' }))
    expect(fresh.store.roles.list()).toEqual([{ id: 'ci', name: 'CI', defaults: { network: 'proxy' }, createdAt: '2026-01-01T00:00:00.000Z', agentCount: 1 }])
    fresh.store.roles.save({ id: 'ci', name: 'CI 2', defaults: {}, at: 'later' })
    expect(fresh.store.roles.get('ci')).toMatchObject({ name: 'CI 2', createdAt: '2026-01-01T00:00:00.000Z' })
    expect(fresh.store.agents.listByRole('ci').map((a) => a.id)).toEqual(['a'])
    expect(() => fresh.store.agents.insert(agent('b', { roleId: 'nope' }))).toThrow(/FOREIGN KEY/)
  })
})
