import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { agentProfileDefaults, redactedSecret, type AgentChange } from '@shared/agents'
import { makeTempDir } from '../../../test/support/temp-home'
import { sandboxIdentity } from '../core'
import { openStore, type Store } from '../store'
import { AgentService } from './agent-service'
import { AgentWorkspaces } from './agent-workspaces'

let home: ReturnType<typeof makeTempDir>
let store: Store
let changes: { agentId: string; change: AgentChange }[]
let agents: AgentService
const workspacesOf = () => join(home.path, 'workspaces')
const clock = () => new Date('2026-01-02T03:04:05.678Z')

beforeEach(() => {
  home = makeTempDir('airlock-agents-', { outsideTmp: true })
  store = openStore(join(home.path, 'airlock.db'))
  changes = []
  agents = build()
})
afterEach(() => {
  store.close()
  home.remove()
})

function build(): AgentService {
  return new AgentService({
    agents: store.agents,
    roles: store.roles,
    workspaces: new AgentWorkspaces(workspacesOf(), clock),
    now: clock,
    onChange: (event) => changes.push(event)
  })
}

describe('AgentService: create and tokens', () => {
  it('creates an agent with a one-time token that authenticates it, stored only as its SHA-256', () => {
    const created = agents.create('coder', { name: 'The coder' })
    expect(created.token).toMatch(/^alk_[A-Za-z0-9_-]{43}$/)
    expect(created.agent).toMatchObject({ id: 'coder', name: 'The coder', role: null, enabled: true, profile: {} })
    expect(JSON.stringify(created.agent)).not.toMatch(/hash/i)
    expect(agents.authenticate(created.token)?.id).toBe('coder')
    const raw = store.db.prepare('select token_hash from agents where id = ?').pluck().get('coder') as string
    expect(raw).toMatch(/^[0-9a-f]{64}$/)
    expect(readFileSync(join(home.path, 'airlock.db')).includes(Buffer.from(created.token))).toBe(false)
    expect(changes).toEqual([{ agentId: 'coder', change: 'created' }])
  })

  it('gives every agent its own token and refuses tokens that are wrong, truncated or not strings', () => {
    const a = agents.create('a').token
    const b = agents.create('b').token
    expect(a).not.toBe(b)
    expect(agents.authenticate(b)?.id).toBe('b')
    for (const wrong of [a.slice(0, -1), `${a}x`, a.replace('alk_', 'xyz_'), '', 'alk_', 42, undefined, { token: a }]) {
      expect(agents.authenticate(wrong)).toBeUndefined()
    }
  })

  it('refuses a taken id with agent.exists and keeps the first agent and its token', () => {
    const first = agents.create('dup')
    expect(() => agents.create('dup')).toThrow(expect.objectContaining({ code: 'agent.exists' }))
    expect(agents.authenticate(first.token)?.id).toBe('dup')
    expect(agents.list().map((a) => a.id)).toEqual(['dup'])
  })

  const badIds: [string, unknown][] = [
    ['upper case', 'Coder'],
    ['a path', '../etc'],
    ['the reserved name', 'background'],
    ['a leading dash', '-x'],
    ['not a string', 7]
  ]
  for (const [what, id] of badIds) {
    it(`refuses ${what} as an id with agent.invalid_id, creating nothing`, () => {
      expect(() => agents.create(id)).toThrow(expect.objectContaining({ code: 'agent.invalid_id', message: expect.stringMatching(/^id /) }))
      expect(agents.list()).toEqual([])
      expect(existsSync(workspacesOf()) ? readdirSync(workspacesOf()) : []).toEqual([])
    })
  }

  const badProfiles: [string, unknown, RegExp][] = [
    ['an unknown key', { capabilites: ['files'] }, /Unrecognized key.*capabilites/],
    ['a bad limit', { limits: { pids: -1 } }, /^limits\.pids: /],
    ['an unknown capability', { capabilities: ['files', 'root'] }, /^capabilities\.1: /],
    ['a fallback with required isolation', { isolation: 'required', unsafeFallback: true }, /^unsafeFallback: /],
    ['a profile that is not an object', ['files'], /^profile: /]
  ]
  for (const [what, profile, message] of badProfiles) {
    it(`refuses a profile with ${what}, naming the field`, () => {
      expect(() => agents.create('x', { profile })).toThrow(expect.objectContaining({ code: 'agent.invalid_profile', message: expect.stringMatching(message) }))
      expect(agents.list()).toEqual([])
    })
  }
})

describe('AgentService: workspaces', () => {
  it('creates <workspaces>/<id>/ with scratch, integrations and skills owned by the sandbox identity', () => {
    const created = agents.create('coder')
    const root = join(workspacesOf(), 'coder')
    expect(created.workspace).toBe(root)
    expect(readdirSync(root).sort()).toEqual(['integrations', 'scratch', 'skills'])
    const identity = sandboxIdentity()
    for (const folder of ['scratch', 'integrations', 'skills']) {
      const stat = lstatSync(join(root, folder))
      expect(stat.isDirectory()).toBe(true)
      expect([stat.uid, stat.gid]).toEqual([identity.uid, identity.gid])
    }
    if (identity.dedicated) expect([lstatSync(root).uid, lstatSync(root).gid, lstatSync(root).mode & 0o7777]).toEqual([0, identity.gid, 0o1770])
    expect(agents.workspaceOf('coder')).toBe(root)
  })

  it('removing an agent moves its workspace to .removed/<id>-<timestamp>; a new agent of that id starts empty', () => {
    const first = agents.create('coder')
    writeFileSync(join(first.workspace, 'scratch', 'notes.txt'), 'old agent data')
    expect(agents.remove('coder')).toEqual({ workspaceMovedTo: join(workspacesOf(), '.removed', 'coder-2026-01-02T03-04-05-678Z') })
    expect(readFileSync(join(workspacesOf(), '.removed', 'coder-2026-01-02T03-04-05-678Z', 'scratch', 'notes.txt'), 'utf8')).toBe('old agent data')
    expect(agents.authenticate(first.token)).toBeUndefined()
    expect(agents.state('coder')).toBe('removed')
    const second = agents.create('coder')
    expect(readdirSync(join(second.workspace, 'scratch'))).toEqual([])
    expect(agents.authenticate(first.token)).toBeUndefined()
    expect(changes.map((c) => c.change)).toEqual(['created', 'removed', 'created'])
  })

  it('a folder left where a new agent goes (a crash, a hand-made folder) is moved aside, not reused', () => {
    mkdirSync(join(workspacesOf(), 'coder', 'scratch'), { recursive: true })
    writeFileSync(join(workspacesOf(), 'coder', 'scratch', 'secret.txt'), 'someone else')
    agents.create('coder')
    agents.remove('coder')
    const removed = readdirSync(join(workspacesOf(), '.removed')).sort()
    expect(removed).toEqual(['coder-2026-01-02T03-04-05-678Z', 'coder-2026-01-02T03-04-05-678Z-2'])
    expect(readFileSync(join(workspacesOf(), '.removed', removed[0]!, 'scratch', 'secret.txt'), 'utf8')).toBe('someone else')
  })

  it('workspaceOf makes a deleted workspace again', () => {
    agents.create('coder')
    rmSync(join(workspacesOf(), 'coder'), { recursive: true })
    expect(readdirSync(agents.workspaceOf('coder')).sort()).toEqual(['integrations', 'scratch', 'skills'])
    rmSync(join(workspacesOf(), 'coder', 'skills'), { recursive: true })
    expect(readdirSync(agents.workspaceOf('coder')).sort()).toEqual(['integrations', 'scratch', 'skills'])
  })

  it('a workspace that cannot be made refuses the agent and records nothing', () => {
    writeFileSync(workspacesOf(), 'a file where the workspaces folder goes')
    expect(() => agents.create('coder')).toThrow(
      expect.objectContaining({ code: 'agent.workspace_unavailable', message: expect.stringContaining(join(workspacesOf(), 'coder')) })
    )
    expect(agents.list()).toEqual([])
    expect(changes).toEqual([])
  })

  it('removing an unknown agent is agent.not_found and moves nothing', () => {
    mkdirSync(join(workspacesOf(), 'ghost'), { recursive: true })
    expect(() => agents.remove('ghost')).toThrow(expect.objectContaining({ code: 'agent.not_found' }))
    expect(existsSync(join(workspacesOf(), 'ghost'))).toBe(true)
  })
})

describe('AgentService: enable, update, effective profile', () => {
  it('a disabled agent does not authenticate until enabled again; the changes are told once each', () => {
    const { token } = agents.create('coder')
    expect(agents.disable('coder').enabled).toBe(false)
    agents.disable('coder')
    expect(agents.authenticate(token)).toBeUndefined()
    expect(agents.state('coder')).toBe('disabled')
    agents.enable('coder')
    expect(agents.authenticate(token)?.id).toBe('coder')
    expect(changes.map((c) => c.change)).toEqual(['created', 'disabled', 'enabled'])
  })

  it('effective profile: the agent values over the defaults, limits key by key', () => {
    agents.create('coder', { profile: { network: 'proxy', limits: { pids: 64 } } })
    expect(agents.effectiveProfile('coder')).toEqual({ ...agentProfileDefaults, network: 'proxy', limits: { ...agentProfileDefaults.limits, pids: 64 } })
  })

  it('a patch is laid over the stored profile; a whole profile replaces it; both are validated', () => {
    agents.create('coder', { profile: { network: 'proxy', limits: { pids: 64 } } })
    expect(agents.update('coder', { patch: { limits: { memoryMb: 512 } } }).profile).toEqual({ network: 'proxy', limits: { pids: 64, memoryMb: 512 } })
    expect(agents.update('coder', { profile: { ask: 'always' }, name: 'Renamed' })).toMatchObject({ name: 'Renamed', profile: { ask: 'always' } })
    expect(() => agents.update('coder', { patch: { limits: { pids: 0 } } })).toThrow(
      expect.objectContaining({ code: 'agent.invalid_profile', message: expect.stringMatching(/^limits\.pids: /) })
    )
    expect(() => agents.update('coder', { patch: { isolation: 'required', unsafeFallback: true } })).toThrow(
      expect.objectContaining({ code: 'agent.invalid_profile' })
    )
    expect(agents.get('coder').profile).toEqual({ ask: 'always' })
    expect(() => agents.update('nobody', { name: 'x' })).toThrow(expect.objectContaining({ code: 'agent.not_found' }))
  })

  it('MCP secrets are redacted from views; sending the marker back keeps the stored value', () => {
    const server = { name: 'gh', url: 'https://mcp.example/', headers: { Authorization: 'Bearer s3cret' } }
    const created = agents.create('coder', { profile: { capabilities: ['mcp'], mcpServers: [server] } })
    expect(JSON.stringify(created.agent)).not.toContain('s3cret')
    expect(JSON.stringify(agents.list())).not.toContain('s3cret')
    const shown = agents.get('coder').profile
    expect(shown.mcpServers?.[0]?.headers).toEqual({ Authorization: redactedSecret })
    agents.update('coder', { profile: { ...shown, ask: 'always' } })
    expect(agents.effectiveProfile('coder').mcpServers[0]?.headers).toEqual({ Authorization: 'Bearer s3cret' })
    const unknown = { ...shown, mcpServers: [{ ...server, name: 'other', headers: { Authorization: redactedSecret } }] }
    expect(() => agents.update('coder', { profile: unknown })).toThrow(
      expect.objectContaining({ code: 'agent.invalid_profile', message: expect.stringMatching(/^mcpServers\.0\.headers\.Authorization: /) })
    )
  })

  it('a stored profile that no longer validates fails closed', () => {
    agents.create('coder')
    store.db.prepare("update agents set profile_json = ? where id = 'coder'").run(JSON.stringify({ network: 'everywhere' }))
    expect(agents.get('coder')).toMatchObject({ profile: {}, profileError: expect.stringMatching(/^network: /) })
    expect(() => agents.effectiveProfile('coder')).toThrow(expect.objectContaining({ code: 'agent.profile_corrupt' }))
    agents.update('coder', { profile: { network: 'none' } })
    expect(agents.effectiveProfile('coder').network).toBe('none')
  })

  it('rotating the token stops the old one at once', () => {
    const { token } = agents.create('coder')
    const rotated = agents.rotateToken('coder')
    expect(agents.authenticate(token)).toBeUndefined()
    expect(agents.authenticate(rotated)?.id).toBe('coder')
  })

  it('what one service wrote, another over the same database file sees (the CLI beside a running console)', () => {
    const { token } = agents.create('coder')
    const other = openStore(join(home.path, 'airlock.db'))
    try {
      const second = new AgentService({ agents: other.agents, roles: other.roles, workspaces: new AgentWorkspaces(workspacesOf(), clock) })
      second.disable('coder')
      expect(agents.authenticate(token)).toBeUndefined()
    } finally {
      other.close()
    }
  })
})
