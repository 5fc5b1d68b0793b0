import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { checkEngine, createDockerClient } from '../../src/main/providers'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

// The contract calls the console's Agents, History and Providers views read, through the real
// host's dispatcher (what Electron IPC and the web console's WebSocket both call): the workspace an
// agent wrote through its own tools, the count and usage of its calls in the real SQLite file, and
// Docker image provisioning with its progress events on the contract's channel.

let home: ReturnType<typeof makeTempDir>
let host: Host
const events: { channel: string; payload: unknown }[] = []
const ctx = { transport: 'websocket' as const }
type Answer = { ok: true; value: Record<string, unknown> } | { ok: false; error: { code: string; message: string } }
const call = async (channel: string, input: unknown) => (await host.dispatch(`airlock:${channel}`, input, ctx)) as Answer
const valueOf = <T>(answer: Answer): T => {
  if (!answer.ok) throw new Error(`${answer.error.code}: ${answer.error.message}`)
  return answer.value as T
}

beforeAll(async () => {
  home = makeTempDir('airlock-views-ipc-', { outsideTmp: true })
  // Offline provisioning from a mirror nobody serves: it starts, and fails fast and for sure.
  host = createHost({ home: home.path, logError: () => undefined, imageProvisioning: { mirror: 'http://127.0.0.1:9/debian', tag: 'views-contract' } })
  await host.recovered
  host.events.subscribe((channel, payload) => events.push({ channel, payload }))
  host.agents.service.create('coder', { profile: { capabilities: ['files'] } })
  host.agents.service.create('idle', { profile: { capabilities: ['files'] } })
  const { sessionId } = host.agents.sessions.start('coder', 'test')
  await host.agents.sessions.execute({ sessionId, tool: 'write_file', input: { path: 'src/app.py', content: 'print("hi")\n' } })
  await host.agents.sessions.execute({ sessionId, tool: 'write_file', input: { path: 'notes.md', content: '# notes\n' } })
  await host.agents.sessions.execute({ sessionId, tool: 'read_file', input: { path: '../outside.txt' } })
  await host.agents.sessions.execute({ sessionId, tool: 'run_command', input: { command: 'true' } })
})
afterAll(async () => {
  await host.dispose()
  home.remove()
})

describe('workspace contract: what the agent wrote, as the operator browses it', () => {
  it('lists the root and a folder, reads a file, and shows recent changes newest first', async () => {
    const root = valueOf<{ entries: { name: string; kind: string }[] }>(await call('workspace:list', { agentId: 'coder' }))
    expect(root.entries.map((e) => [e.name, e.kind])).toEqual(
      expect.arrayContaining([
        ['src', 'directory'],
        ['scratch', 'directory'],
        ['notes.md', 'file']
      ])
    )
    expect(valueOf(await call('workspace:list', { agentId: 'coder', path: 'src' }))).toMatchObject({
      path: 'src',
      truncated: false,
      entries: [{ name: 'app.py', path: 'src/app.py', kind: 'file', bytes: 12 }]
    })
    expect(valueOf(await call('workspace:read', { agentId: 'coder', path: 'src/app.py' }))).toMatchObject({
      path: 'src/app.py',
      text: 'print("hi")\n',
      binary: false,
      truncated: false
    })
    const recent = valueOf<{ changes: { path: string }[]; complete: boolean }>(await call('workspace:recent', { agentId: 'coder', limit: 5 }))
    expect(recent.complete).toBe(true)
    expect(recent.changes.map((c) => c.path)).toEqual(['notes.md', 'src/app.py'])
  })

  it('answers an unknown agent and a missing file with their codes', async () => {
    expect(await call('workspace:list', { agentId: 'ghost' })).toMatchObject({ ok: false, error: { code: 'agent.not_found' } })
    expect(await call('workspace:read', { agentId: 'coder', path: 'src/nope.py' })).toMatchObject({
      ok: false,
      error: { code: 'workspace.not_found', message: 'src/nope.py does not exist.' }
    })
  })
})

describe('history count and usage contract', () => {
  it('counts the calls that match the filters the list takes', async () => {
    expect(valueOf(await call('history:count', {}))).toEqual({ count: 4 })
    expect(valueOf(await call('history:count', { agentId: 'coder', status: 'success' }))).toEqual({ count: 2 })
    expect(valueOf(await call('history:count', { tool: 'run_command' }))).toEqual({ count: 1 })
    expect(valueOf(await call('history:count', { agentId: 'idle' }))).toEqual({ count: 0 })
    const listed = valueOf<{ rows: unknown[] }>(await call('history:list', { status: 'success' }))
    expect(valueOf(await call('history:count', { status: 'success' }))).toEqual({ count: listed.rows.length })
  })

  it("charts an agent's calls in the current hour by status, with duration percentiles", async () => {
    const usage = valueOf<{ buckets: { hour: string; counts: Record<string, number> }[]; durations: { count: number; p50: number | null } }>(
      await call('history:usage', { agentId: 'coder' })
    )
    expect(usage.buckets.length).toBeGreaterThanOrEqual(24)
    const total = (status: string) => usage.buckets.reduce((sum, b) => sum + (b.counts[status] ?? 0), 0)
    expect({ success: total('success'), error: total('error'), blocked: total('blocked') }).toEqual({ success: 2, error: 1, blocked: 1 })
    expect(usage.durations.count).toBe(4)
    expect(usage.durations.p50).toEqual(expect.any(Number))
    expect(valueOf(await call('history:usage', { agentId: 'idle' }))).toMatchObject({ durations: { count: 0, p50: null, p90: null, p99: null } })
    expect(await call('history:usage', { since: '2000-01-01T00:00:00Z' })).toMatchObject({
      ok: false,
      error: { code: 'history.invalid_query', message: expect.stringContaining('31 days') }
    })
  })
})

const engine = await checkEngine(createDockerClient())
const skip = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })

describe.skipIf(skip !== undefined)(`providers images contract${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('lists the engine and languages, runs one provisioning at a time, and ends it on the imageProgress channel', async () => {
    expect(valueOf(await call('providers:images', {}))).toMatchObject({ engine: { ok: true }, languages: ['python', 'nodejs', 'bash', 'go', 'cpp'] })
    expect(await call('providers:provisionImage', { language: 'cobol' })).toMatchObject({ ok: false, error: { code: 'providers.unknown_language' } })
    const first = call('providers:provisionImage', { language: 'python', offline: true })
    const second = call('providers:provisionImage', { language: 'nodejs', offline: true })
    expect(await first).toEqual({ ok: true, value: { started: true } })
    expect(await second).toMatchObject({ ok: false, error: { code: 'providers.provisioning_busy', message: expect.stringContaining('python') } })
    const progress = () =>
      events.filter((e) => e.channel === 'airlock:providers:imageProgress').map((e) => e.payload as { image: string; stage: string; percent?: number })
    const until = Date.now() + 60_000
    while (!progress().some((p) => p.stage.startsWith('failed:')) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(progress()[0]).toMatchObject({ image: 'airlock/python:views-contract', percent: 0 })
    expect(progress().at(-1)).toMatchObject({ image: 'airlock/python:views-contract', stage: expect.stringMatching(/^failed: debootstrap failed/) })
    // Ended: the next provisioning may start.
    expect(valueOf<{ provisioning?: string }>(await call('providers:images', {})).provisioning).toBeUndefined()
  }, 90_000)
})
