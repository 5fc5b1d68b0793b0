import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../test/support/temp-home'
import { openStore, type Store } from '../store'
import { AgentService } from './agent-service'
import { AgentWorkspaces } from './agent-workspaces'
import { RoleService } from './role-service'

let home: ReturnType<typeof makeTempDir>
let store: Store
let roles: RoleService
let agents: AgentService
let roleChanges: unknown[]

beforeEach(() => {
  home = makeTempDir('airlock-roles-', { outsideTmp: true })
  store = openStore(join(home.path, 'airlock.db'))
  roleChanges = []
  roles = new RoleService({ roles: store.roles, agents: store.agents, onChange: (event) => roleChanges.push(event) })
  agents = new AgentService({ agents: store.agents, roles: store.roles, workspaces: new AgentWorkspaces(join(home.path, 'workspaces')) })
})
afterEach(() => {
  store.close()
  home.remove()
})

describe('RoleService', () => {
  it('saves, lists and replaces a role, keeping its creation time', () => {
    const created = roles.save({ id: 'ci', defaults: { network: 'proxy' } })
    expect(created).toMatchObject({ id: 'ci', name: 'ci', defaults: { network: 'proxy' }, agentCount: 0 })
    expect(roles.save({ id: 'ci', name: 'CI bots', defaults: { network: 'none' } })).toEqual({ ...created, name: 'CI bots', defaults: { network: 'none' } })
    expect(roles.list().map((r) => r.id)).toEqual(['ci'])
    expect(roleChanges).toEqual([
      { roleId: 'ci', change: 'created', agentIds: [] },
      { roleId: 'ci', change: 'updated', agentIds: [] }
    ])
  })

  const invalid: [string, unknown, RegExp][] = [
    ['a role key in the defaults', { id: 'ci', defaults: { role: 'other' } }, /^defaults: Unrecognized key.*role/],
    ['a bad limit', { id: 'ci', defaults: { limits: { memoryMb: 'lots' } } }, /^defaults\.limits\.memoryMb: /],
    ['a bad id', { id: 'CI', defaults: {} }, /^id: /],
    ['an unknown key', { id: 'ci', defaults: {}, color: 'red' }, /^role: Unrecognized key.*color/],
    ['a fallback its agents would inherit with isolation required', { id: 'ci', defaults: { unsafeFallback: true } }, /^defaults\.unsafeFallback: /]
  ]
  for (const [what, input, message] of invalid) {
    it(`refuses ${what} with role.invalid naming the field`, () => {
      expect(() => roles.save(input)).toThrow(expect.objectContaining({ code: 'role.invalid', message: expect.stringMatching(message) }))
      expect(roles.list()).toEqual([])
    })
  }

  it("shows its MCP servers' env and header values redacted, and keeps them when the view is saved back", () => {
    const server = { name: 'vault', url: 'https://vault.example/mcp', headers: { Authorization: 'Bearer role-secret-1' } }
    const shown = roles.save({ id: 'ops', defaults: { mcpServers: [server] } })
    expect(shown.defaults.mcpServers).toEqual([{ ...server, headers: { Authorization: '<redacted>' } }])
    expect(JSON.stringify(roles.list())).not.toContain('role-secret-1')
    // Saved back as shown (a form round trip) with a change elsewhere: the stored secret stays.
    roles.save({ id: 'ops', defaults: { ...shown.defaults, network: 'none' } })
    agents.create('bot', { role: 'ops' })
    expect(agents.effectiveProfile('bot').mcpServers[0]!.headers).toEqual({ Authorization: 'Bearer role-secret-1' })
    // A marker with no stored value behind it is refused, never stored as the secret.
    expect(() => roles.save({ id: 'ops', defaults: { mcpServers: [{ ...server, headers: { 'X-Api-Key': '<redacted>' } }] } })).toThrow(
      expect.objectContaining({ code: 'role.invalid', message: expect.stringContaining('defaults.mcpServers.0.headers.X-Api-Key') })
    )
  })

  it('will not remove a role its agents still have (that would lift their ceiling)', () => {
    roles.save({ id: 'ci', defaults: {} })
    agents.create('bot', { role: 'ci' })
    expect(() => roles.remove('ci')).toThrow(expect.objectContaining({ code: 'role.in_use', message: expect.stringContaining('bot') }))
    agents.update('bot', { role: null })
    roles.remove('ci')
    expect(roles.list()).toEqual([])
    expect(() => roles.remove('ci')).toThrow(expect.objectContaining({ code: 'role.not_found' }))
  })
})

describe('agents under a role', () => {
  beforeEach(() => {
    roles.save({ id: 'ci', defaults: { capabilities: ['files', 'shell'], network: 'proxy', limits: { memoryMb: 512 }, denylist: ['git push'] } })
  })

  it('inherit the role defaults; the role is taken from --role or the profile', () => {
    agents.create('a', { role: 'ci' })
    agents.create('b', { profile: { role: 'ci', network: 'none' } })
    expect(agents.effectiveProfile('a')).toMatchObject({
      role: 'ci',
      capabilities: ['files', 'shell'],
      network: 'proxy',
      limits: { memoryMb: 512 },
      denylist: ['git push']
    })
    expect(agents.get('b')).toMatchObject({ role: 'ci', profile: { network: 'none' } })
    expect(roles.get('ci').agentCount).toBe(2)
  })

  it('a profile beyond the role is refused at create and update, naming the fields', () => {
    expect(() => agents.create('a', { role: 'ci', profile: { network: 'full', limits: { memoryMb: 4096 } } })).toThrow(
      expect.objectContaining({
        code: 'agent.exceeds_role',
        message: expect.stringMatching(/network: "full" is wider than "proxy" \(role ci\); limits\.memoryMb: 4096 is above 512/)
      })
    )
    expect(agents.list()).toEqual([])
    agents.create('a', { profile: { network: 'full' } })
    expect(() => agents.update('a', { role: 'ci' })).toThrow(
      expect.objectContaining({ code: 'agent.exceeds_role', message: expect.stringMatching(/^The profile exceeds its role: network: /) })
    )
    expect(() => agents.update('a', { patch: { role: 'ci', capabilities: ['browser'] } })).toThrow(expect.objectContaining({ code: 'agent.exceeds_role' }))
    expect(agents.get('a').role).toBeNull()
  })

  it('an unknown role or two different roles are refused', () => {
    expect(() => agents.create('a', { role: 'nope' })).toThrow(expect.objectContaining({ code: 'role.not_found' }))
    expect(() => agents.create('a', { role: 'ci', profile: { role: 'other' } })).toThrow(
      expect.objectContaining({ code: 'agent.invalid_profile', message: expect.stringMatching(/^role: /) })
    )
    expect(agents.list()).toEqual([])
  })

  it('a role tightened later clamps its agents and says what it clamped; the stored profile is kept', () => {
    agents.create('a', { role: 'ci', profile: { network: 'proxy', limits: { memoryMb: 512 } } })
    roles.save({ id: 'ci', defaults: { capabilities: ['files'], network: 'none', limits: { memoryMb: 256 } } })
    expect(roleChanges.at(-1)).toEqual({ roleId: 'ci', change: 'updated', agentIds: ['a'] })
    const resolved = agents.resolvedProfile('a')
    expect(resolved.profile).toMatchObject({ capabilities: ['files'], network: 'none', limits: { memoryMb: 256 }, denylist: [] })
    expect(resolved.clamped.map((c) => c.path)).toEqual(['network', 'limits.memoryMb'])
    expect(agents.get('a').profile).toEqual({ network: 'proxy', limits: { memoryMb: 512 } })
  })

  it('a role whose stored defaults no longer validate stops its agents (fail closed)', () => {
    agents.create('a', { role: 'ci' })
    store.db.prepare('update roles set defaults_json = \'{"network":"everywhere"}\' where id = \'ci\'').run()
    expect(roles.get('ci')).toMatchObject({ defaults: {}, defaultsError: expect.stringMatching(/^network: /) })
    expect(() => agents.effectiveProfile('a')).toThrow(expect.objectContaining({ code: 'role.invalid' }))
  })
})
