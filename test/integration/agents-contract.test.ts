import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import type { Store } from '../../src/main/store'
import { makeTempDir } from '../support/temp-home'

/**
 * The `agents` contract through the real host: its one contract dispatcher (what the Electron IPC
 * and the web console's WebSocket both call) over the real services and a temp home — what a
 * console can send and what it gets back.
 */

let home: ReturnType<typeof makeTempDir>
let host: Host
let store: Store
const ctx = { transport: 'websocket' as const }
const call = (name: string, input: unknown) => host.dispatch(`airlock:agents:${name}`, input, ctx)

beforeEach(async () => {
  home = makeTempDir('airlock-agent-ipc-', { outsideTmp: true })
  host = createHost({ home: home.path, logError: () => undefined })
  await host.recovered
  store = host.store
})
afterEach(async () => {
  await host.dispose()
  home.remove()
})

describe('agents contract', () => {
  it('create returns the token once; no later output holds it or its hash', async () => {
    const created = await call('create', {
      agentId: 'coder',
      profile: { capabilities: ['mcp'], mcpServers: [{ name: 'gh', url: 'https://x.example/', headers: { Authorization: 'Bearer s3cret' } }] }
    })
    expect(created).toMatchObject({ ok: true, value: { token: expect.stringMatching(/^alk_/), agent: { id: 'coder' } } })
    const token = (created as { value: { token: string } }).value.token
    const hash = store.db.prepare('select token_hash from agents').pluck().get() as string
    const later = JSON.stringify([
      await call('list', {}),
      await call('get', { agentId: 'coder' }),
      await call('setEnabled', { agentId: 'coder', enabled: false })
    ])
    for (const secret of [token, hash, 's3cret']) expect(later).not.toContain(secret)
    expect(await call('get', { agentId: 'coder' })).toMatchObject({
      ok: true,
      value: { effectiveProfile: { mcpServers: [{ headers: { Authorization: '<redacted>' } }] }, clamped: [] }
    })
  })

  it('refuses unknown keys and bad fields at the boundary, naming the path', async () => {
    expect(await call('create', { agentId: 'coder', tokenHash: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', message: expect.stringMatching(/Unrecognized key.*tokenHash/) }
    })
    expect(await call('update', { agentId: 'coder', patch: { limits: { pids: -1 } } })).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/^input\.patch\.limits\.pids: /) }
    })
    expect(await call('update', { agentId: 'coder', profile: {}, patch: {} })).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/^input\.patch: give a whole profile or a patch/) }
    })
    expect(await call('create', { agentId: '../x' })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^input\.agentId: /) } })
  })

  it('service refusals come back with their stable code', async () => {
    await call('create', { agentId: 'coder' })
    expect(await call('create', { agentId: 'coder' })).toMatchObject({ ok: false, error: { code: 'agent.exists' } })
    expect(await call('remove', { agentId: 'ghost' })).toMatchObject({ ok: false, error: { code: 'agent.not_found' } })
    expect(await call('saveRole', { id: 'ci', defaults: { network: 'none' } })).toMatchObject({ ok: true, value: { id: 'ci', agentCount: 0 } })
    expect(await call('update', { agentId: 'coder', role: 'ci', patch: { network: 'full' } })).toMatchObject({
      ok: false,
      error: { code: 'agent.exceeds_role', message: expect.stringMatching(/network/) }
    })
    expect(await call('update', { agentId: 'coder', role: 'ci' })).toMatchObject({ ok: true, value: { role: 'ci' } })
    expect(await call('removeRole', { roleId: 'ci' })).toMatchObject({ ok: false, error: { code: 'role.in_use' } })
  })

  it('sessions lists what the store recorded; remove answers where the workspace went', async () => {
    await call('create', { agentId: 'coder' })
    const sessionId = store.sessions.start('coder', 'mcp-http')
    expect(await call('sessions', { agentId: 'coder' })).toMatchObject({ ok: true, value: [{ id: sessionId, transport: 'mcp-http', endedAt: null }] })
    expect(await call('remove', { agentId: 'coder' })).toMatchObject({
      ok: true,
      value: { workspaceMovedTo: expect.stringContaining('/workspaces/.removed/coder-') }
    })
    expect(await call('sessions', { agentId: 'coder' })).toEqual({ ok: true, value: [] })
  })
})
