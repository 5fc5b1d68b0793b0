import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { agentsContract } from '@shared/ipc/agents'
import { makeTempDir } from '../../../test/support/temp-home'
import { createCallDispatcher, type CallDispatcher, type ContractHandlers } from '../ipc/call-dispatcher'
import { openStore, type Store } from '../store'
import { AgentService } from './agent-service'
import { AgentWorkspaces } from './agent-workspaces'
import { RoleService } from './role-service'

/**
 * The `agents` contract over the real dispatcher and the real services (a temp home): what a
 * console can send and what it gets back. The handlers are the one-liners ipc/handlers.ts wires.
 */
function agentHandlers(agents: AgentService, roles: RoleService, store: Store): ContractHandlers<{ agents: typeof agentsContract }>['agents'] {
  return {
    list: () => agents.list(),
    get: ({ agentId }) => agents.detail(agentId),
    create: ({ agentId, ...input }) => agents.create(agentId, input),
    update: ({ agentId, ...change }) => agents.update(agentId, change),
    setEnabled: ({ agentId, enabled }) => agents.setEnabled(agentId, enabled),
    remove: ({ agentId }) => agents.remove(agentId),
    rotateToken: ({ agentId }) => ({ token: agents.rotateToken(agentId) }),
    sessions: ({ agentId, limit }) => store.sessions.listByAgent(agentId, { limit }),
    listRoles: () => roles.list(),
    saveRole: (input) => roles.save(input),
    removeRole: ({ roleId }) => (roles.remove(roleId), { removed: true as const })
  }
}

let home: ReturnType<typeof makeTempDir>
let store: Store
let dispatch: CallDispatcher
const ctx = { transport: 'websocket' as const }
const call = (name: string, input: unknown) => dispatch(`airlock:agents:${name}`, input, ctx)

beforeEach(() => {
  home = makeTempDir('airlock-agent-ipc-', { outsideTmp: true })
  store = openStore(join(home.path, 'airlock.db'))
  const agents = new AgentService({ agents: store.agents, roles: store.roles, workspaces: new AgentWorkspaces(join(home.path, 'workspaces')) })
  const roles = new RoleService({ roles: store.roles, agents: store.agents })
  dispatch = createCallDispatcher({ agents: agentsContract }, { agents: agentHandlers(agents, roles, store) })
})
afterEach(() => {
  store.close()
  home.remove()
})

describe('agents contract', () => {
  it('create returns the token once; no later output holds it or its hash', async () => {
    const created = await call('create', { agentId: 'coder', profile: { capabilities: ['mcp'], mcpServers: [{ name: 'gh', url: 'https://x.example/', headers: { Authorization: 'Bearer s3cret' } }] } })
    expect(created).toMatchObject({ ok: true, value: { token: expect.stringMatching(/^alk_/), agent: { id: 'coder' } } })
    const token = (created as { value: { token: string } }).value.token
    const hash = store.db.prepare('select token_hash from agents').pluck().get() as string
    const later = JSON.stringify([await call('list', {}), await call('get', { agentId: 'coder' }), await call('setEnabled', { agentId: 'coder', enabled: false })])
    for (const secret of [token, hash, 's3cret']) expect(later).not.toContain(secret)
    expect(await call('get', { agentId: 'coder' })).toMatchObject({ ok: true, value: { effectiveProfile: { mcpServers: [{ headers: { Authorization: '<redacted>' } }] }, clamped: [] } })
  })

  it('refuses unknown keys and bad fields at the boundary, naming the path', async () => {
    expect(await call('create', { agentId: 'coder', tokenHash: 'x' })).toMatchObject({ ok: false, error: { code: 'validation_failed', message: expect.stringMatching(/Unrecognized key.*tokenHash/) } })
    expect(await call('update', { agentId: 'coder', patch: { limits: { pids: -1 } } })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^input\.patch\.limits\.pids: /) } })
    expect(await call('update', { agentId: 'coder', profile: {}, patch: {} })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^input\.patch: give a whole profile or a patch/) } })
    expect(await call('create', { agentId: '../x' })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^input\.agentId: /) } })
  })

  it('service refusals come back with their stable code', async () => {
    await call('create', { agentId: 'coder' })
    expect(await call('create', { agentId: 'coder' })).toMatchObject({ ok: false, error: { code: 'agent.exists' } })
    expect(await call('remove', { agentId: 'ghost' })).toMatchObject({ ok: false, error: { code: 'agent.not_found' } })
    expect(await call('saveRole', { id: 'ci', defaults: { network: 'none' } })).toMatchObject({ ok: true, value: { id: 'ci', agentCount: 0 } })
    expect(await call('update', { agentId: 'coder', role: 'ci', patch: { network: 'full' } })).toMatchObject({ ok: false, error: { code: 'agent.exceeds_role', message: expect.stringMatching(/network/) } })
    expect(await call('update', { agentId: 'coder', role: 'ci' })).toMatchObject({ ok: true, value: { role: 'ci' } })
    expect(await call('removeRole', { roleId: 'ci' })).toMatchObject({ ok: false, error: { code: 'role.in_use' } })
  })

  it('sessions lists what the store recorded; remove answers where the workspace went', async () => {
    await call('create', { agentId: 'coder' })
    const sessionId = store.sessions.start('coder', 'mcp-http')
    expect(await call('sessions', { agentId: 'coder' })).toMatchObject({ ok: true, value: [{ id: sessionId, transport: 'mcp-http', endedAt: null }] })
    expect(await call('remove', { agentId: 'coder' })).toMatchObject({ ok: true, value: { workspaceMovedTo: expect.stringContaining('/workspaces/.removed/coder-') } })
    expect(await call('sessions', { agentId: 'coder' })).toEqual({ ok: true, value: [] })
  })
})
