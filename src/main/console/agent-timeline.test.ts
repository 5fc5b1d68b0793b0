import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openStore, type Store } from '../store'
import { makeTempDir } from '../../../test/support/temp-home'
import { AgentTimeline } from './agent-timeline'

// The timeline is a view over what is recorded: a real SQLite file, its sessions and history rows.

let dir: ReturnType<typeof makeTempDir>
let store: Store

beforeEach(() => {
  dir = makeTempDir('airlock-timeline-')
  store = openStore(join(dir.path, 'airlock.db'))
  const now = new Date().toISOString()
  store.agents.insert({ id: 'coder', name: 'coder', roleId: null, tokenHash: 'x'.repeat(64), enabled: true, profile: {}, createdAt: now, updatedAt: now })
})
afterEach(() => {
  store.close()
  dir.remove()
})

/** Records one ended call at `at`. */
function call(sessionId: string, at: string, input: unknown, policy?: { rule: string; riskFlags: string[] }) {
  const callId = randomUUID()
  store.history.begin({ callId, agentId: 'coder', sessionId, tool: 'run_command', inputSummary: input, startedAt: at })
  store.history.finish({
    callId,
    status: 'success',
    finishedAt: at,
    durationMs: 5,
    artifacts: [],
    lineage: [],
    ...(policy ? { policy: { decision: 'allow', ...policy } } : {})
  })
  return callId
}

describe('AgentTimeline', () => {
  it('tells sessions (with their client) and calls (with the rule and flags) newest first, and pages by time', async () => {
    const sessionId = store.sessions.start('coder', 'mcp-http')
    store.sessions.saveMcpInitialize(sessionId, JSON.stringify({ method: 'initialize', params: { clientInfo: { name: 'claude-code', version: '2.0.1' } } }))
    const started = store.sessions.get(sessionId)!.startedAt
    const later = (ms: number) => new Date(Date.parse(started) + ms).toISOString()
    const first = call(sessionId, later(10), { command: 'ls' })
    const second = call(sessionId, later(20), { command: 'rm -rf build' }, { rule: 'risk.deletion', riskFlags: ['recoverable_deletion'] })
    const timeline = new AgentTimeline({ sessions: store.sessions, history: store.history, checkpoints: store.checkpoints })
    const page = timeline.list('coder', undefined, 100)
    expect(page.entries.map((entry) => (entry.kind === 'call' ? entry.callId : `${entry.kind}:${'change' in entry ? entry.change : ''}`))).toEqual([
      second,
      first,
      'session:connected'
    ])
    expect(page.entries[0]).toMatchObject({ what: 'rm -rf build', rule: 'risk.deletion', riskFlags: ['recoverable_deletion'] })
    expect(page.entries[2]).toMatchObject({ kind: 'session', client: 'claude-code 2.0.1' })
    const older = timeline.list('coder', page.entries[0]!.at, 1)
    expect(older.entries.map((entry) => (entry.kind === 'call' ? entry.callId : entry.kind))).toEqual([first])
    expect(older.more).toBe(true)
  })
})
