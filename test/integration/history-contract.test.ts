import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { makeTempDir } from '../support/temp-home'

// The `history` contract through the real host's contract dispatcher: calls made through the
// session API appear in `list` (filters, paging), `detail` and `verify`, and `changed` is pushed.

let home: ReturnType<typeof makeTempDir>
let host: Host
const pushed: unknown[] = []
const ctx = { transport: 'websocket' as const }
const call = (name: string, input: unknown) => host.dispatch(`airlock:history:${name}`, input, ctx)

beforeAll(async () => {
  home = makeTempDir('airlock-history-ipc-', { outsideTmp: true })
  host = createHost({ home: home.path, logError: () => undefined })
  await host.recovered
  host.events.subscribe((channel, payload) => channel === 'airlock:history:changed' && pushed.push(payload))
  host.agents.service.create('coder', { profile: { capabilities: ['files'] } })
  const { sessionId } = host.agents.sessions.start('coder', 'test')
  await host.agents.sessions.execute({ sessionId, tool: 'write_file', input: { path: 'a.txt', content: 'hello' } })
  await host.agents.sessions.execute({ sessionId, tool: 'read_file', input: { path: '../outside.txt' } })
  await host.agents.sessions.execute({ sessionId, tool: 'run_command', input: { command: 'true' } })
})
afterAll(async () => {
  await host.dispose()
  home.remove()
})

describe('history contract', () => {
  it('lists every call newest first, filters by status and tool, and pages by cursor', async () => {
    const all = await call('list', {})
    expect(all).toMatchObject({
      ok: true,
      value: {
        rows: [
          { tool: 'run_command', status: 'blocked' },
          { tool: 'read_file', status: 'error' },
          { tool: 'write_file', status: 'success' }
        ]
      }
    })
    expect(await call('list', { status: 'success' })).toMatchObject({ ok: true, value: { rows: [{ tool: 'write_file' }] } })
    const first = (await call('list', { limit: 1 })) as { ok: true; value: { rows: { tool: string }[]; nextCursor: number } }
    expect(first.value.rows.map((r) => r.tool)).toEqual(['run_command'])
    expect(await call('list', { limit: 2, cursor: first.value.nextCursor })).toMatchObject({
      ok: true,
      value: { rows: [{ tool: 'read_file' }, { tool: 'write_file' }] }
    })
  })

  it('shows one call in detail, verifies the chain, and pushed a change per begin and end', async () => {
    const [blocked] = ((await call('list', {})) as { ok: true; value: { rows: { id: string }[] } }).value.rows
    expect(await call('detail', { id: blocked!.id })).toMatchObject({
      ok: true,
      value: { policy: { decision: 'deny', rule: 'capability.not_enabled' }, chain: { chainSeq: 3 } }
    })
    expect(await call('verify', {})).toMatchObject({ ok: true, value: { ok: true, rows: 3 } })
    expect(pushed).toHaveLength(6)
  })

  it('refuses bad input naming the field', async () => {
    expect(await call('list', { limit: 100000 })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/limit/) } })
    expect(await call('list', { status: 'exploded' })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/status/) } })
    expect(await call('detail', { id: 'no-such-call' })).toMatchObject({ ok: false })
  })
})
