import type { AgentView } from '@shared/agents'
import type { SessionView } from '@shared/approvals'
import type { HistoryRow } from '@shared/ipc/history'
import { fail, ok, type AppError, type Result } from '@shared/result'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { markViewsStale } from '../../../lib/connection'
import { followHost } from '../../../lib/follow-host'
import { agentsFeed, createAgentsStore } from './agents-state'
import type { AgentsClient } from './client'

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 9, minute)).toISOString()

const agentView = (id: string, patch: Partial<AgentView> = {}): AgentView => ({
  id,
  name: id,
  role: null,
  enabled: true,
  profile: {},
  createdAt: at(0),
  updatedAt: at(0),
  ...patch
})

const session = (id: string, agentId: string, open: boolean): SessionView => ({
  id,
  agentId,
  transport: 'http',
  taint: 'PUBLIC',
  startedAt: at(1),
  lastSeenAt: null,
  endedAt: open ? null : at(2),
  endReason: open ? null : 'closed',
  open
})

const call = (id: string, agentId: string, minute: number): HistoryRow =>
  ({
    seq: minute,
    id,
    agentId,
    sessionId: 's',
    tool: 'run_command',
    status: 'success',
    providerId: null,
    exitCode: 0,
    durationMs: 1,
    waitMs: null,
    waitingSince: null,
    startedAt: at(minute),
    finishedAt: at(minute),
    error: null,
    inputSummary: {},
    approval: null
  }) as HistoryRow

/**
 * A stand-in for the host at the contract boundary: agents, sessions, the pending queue and calls
 * held in memory, answered the way the contract answers (refusals carry a code), and the events
 * main pushes, fired by the test. What is under test is the store and how it follows the host.
 */
function fakeHost() {
  const agents = new Map([agentView('coder'), agentView('builder')].map((agent) => [agent.id, agent]))
  const host = {
    agents,
    sessions: [session('s1', 'coder', true), session('s2', 'builder', false)],
    pending: [{ id: 'p1', agentId: 'coder' }],
    calls: [call('c1', 'coder', 5)],
    /** How many times each call was made. */
    asked: {} as Record<string, number>
  }
  const refusals = new Map<string, AppError>()
  const listeners = new Map<string, Set<(payload: unknown) => void>>()
  const answer = <T>(name: string, value: () => T | AppError): Result<T> => {
    host.asked[name] = (host.asked[name] ?? 0) + 1
    const refused = refusals.get(name)
    if (refused) return fail(refused.code, refused.message)
    const result = value()
    return result && typeof result === 'object' && 'code' in result && 'message' in result ? fail(result.code, result.message) : ok(result as T)
  }
  const missing = (agentId: string): AppError => ({ code: 'agent.not_found', message: `There is no agent "${agentId}".` })
  const event = (name: string) => (listener: (payload: unknown) => void) => {
    listeners.set(name, (listeners.get(name) ?? new Set()).add(listener))
    return () => void listeners.get(name)!.delete(listener)
  }
  const client = {
    agents: {
      list: async () => answer('agents.list', () => [...agents.values()]),
      listRoles: async () => answer('agents.listRoles', () => []),
      get: async ({ agentId }: { agentId: string }) =>
        answer('agents.get', () => (agents.has(agentId) ? { agent: agents.get(agentId)!, clamped: [], workspace: `/ws/${agentId}` } : missing(agentId))),
      connection: async () =>
        answer('agents.connection', () => ({ url: 'http://127.0.0.1:7411/mcp', snippets: { generic: '', claudeCode: '', cursor: '', stdio: '' } })),
      sessions: async ({ agentId }: { agentId: string }) => answer('agents.sessions', () => host.sessions.filter((s) => s.agentId === agentId)),
      create: async ({ agentId }: { agentId: string }) =>
        answer('agents.create', () => {
          if (agents.has(agentId)) return { code: 'agent.exists', message: `An agent "${agentId}" already exists.` }
          agents.set(agentId, agentView(agentId))
          return { agent: agents.get(agentId)!, token: 'alk_new', workspace: `/ws/${agentId}` }
        }),
      remove: async ({ agentId }: { agentId: string }) => answer('agents.remove', () => (agents.delete(agentId) ? {} : missing(agentId))),
      setEnabled: async ({ agentId, enabled }: { agentId: string; enabled: boolean }) =>
        answer('agents.setEnabled', () => (agents.has(agentId) ? agents.set(agentId, { ...agents.get(agentId)!, enabled }).get(agentId)! : missing(agentId))),
      rotateToken: async ({ agentId }: { agentId: string }) =>
        answer('agents.rotateToken', () => (agents.has(agentId) ? { token: 'alk_rotated' } : missing(agentId))),
      onChanged: event('agents.changed')
    },
    sessions: {
      list: async (input: { open?: boolean }) => answer('sessions.list', () => host.sessions.filter((s) => !input.open || s.open)),
      onChanged: event('sessions.changed')
    },
    approvals: { list: async () => answer('approvals.list', () => [...host.pending]), onChanged: event('approvals.changed') },
    history: {
      list: async (input: { agentId?: string; limit?: number }) =>
        answer('history.list', () => ({ rows: host.calls.filter((c) => !input.agentId || c.agentId === input.agentId).slice(0, input.limit) })),
      count: async (input: { agentId?: string }) => answer('history.count', () => ({ count: host.calls.filter((c) => c.agentId === input.agentId).length })),
      usage: async () => answer('history.usage', () => ({ since: at(0), buckets: [], durations: { count: 0, p50: null, p90: null, p99: null } })),
      onChanged: event('history.changed')
    },
    settings: {
      get: async () =>
        answer('settings.get', () => ({
          key: 'code_execution.providers',
          value: ['docker', { providerId: 'bubblewrap' }],
          defaultValue: [],
          isDefault: false,
          description: ''
        })),
      onChanged: event('settings.changed')
    },
    timeline: { list: async () => answer('timeline.list', () => ({ entries: [], more: false })) },
    workspace: {
      list: async () => answer('workspace.list', () => ({ path: '', entries: [], truncated: false })),
      recent: async () => answer('workspace.recent', () => ({ changes: [], scanned: 0, complete: true })),
      read: async () => answer('workspace.read', () => ({ code: 'workspace.not_found', message: 'No such file.' }))
    },
    checkpoints: {
      list: async () => answer('checkpoints.list', () => ({ checkpoints: [], storeBytes: 0, enabled: true })),
      onChanged: event('checkpoints.changed')
    }
  }
  return {
    ...host,
    client: client as unknown as AgentsClient,
    /** From now on the call `name` is refused with `error` (undefined: answered again). */
    refuse(name: string, error: AppError | undefined) {
      if (error) refusals.set(name, error)
      else refusals.delete(name)
    },
    /** Main pushes an event (`agents.changed`, `history.changed`, …) to every listener. */
    push(name: string, payload: unknown) {
      for (const listener of listeners.get(name) ?? []) listener(payload)
    }
  }
}

const stops: (() => void)[] = []
afterEach(() => stops.splice(0).forEach((stop) => stop()))

/** A store over the host, following its events and the connection as the console's does. */
function followedStore(host: ReturnType<typeof fakeHost>) {
  const store = createAgentsStore(host.client)
  stops.push(followHost(store, agentsFeed(host.client)))
  return store
}

const unavailable: AppError = { code: 'store.unavailable', message: 'The database could not be opened.' }

describe('agents store', () => {
  it('loads the agents with their sessions (open ones over recent), pending items, provider order and last calls', async () => {
    const host = fakeHost()
    const store = createAgentsStore(host.client)
    await store.getState().load()
    expect(store.getState()).toMatchObject({
      status: 'ready',
      error: undefined,
      pending: [{ id: 'p1', agentId: 'coder' }],
      operatorOrder: ['docker', 'bubblewrap'],
      lastCalls: { coder: at(5) }
    })
    expect(store.getState().agents.map((agent) => agent.id)).toEqual(['coder', 'builder'])
    expect(
      store
        .getState()
        .sessions.map((s) => `${s.id}:${s.open}`)
        .sort()
    ).toEqual(['s1:true', 's2:false'])
  })

  it("keeps the host's error code and message when the list cannot be read or an action is refused", async () => {
    const host = fakeHost()
    const store = createAgentsStore(host.client)
    host.refuse('agents.list', unavailable)
    await store.getState().load()
    expect(store.getState()).toMatchObject({ status: 'error', error: unavailable })
    host.refuse('agents.list', undefined)
    await store.getState().load()
    expect(store.getState()).toMatchObject({ status: 'ready', error: undefined })

    expect(await store.getState().remove('ghost')).toBe(false)
    expect(store.getState()).toMatchObject({ error: { code: 'agent.not_found', message: 'There is no agent "ghost".' }, busy: {} })
    store.getState().clearError()
    await store.getState().setEnabled('builder', false)
    expect(store.getState().error).toBeUndefined()
    expect(store.getState().agents.find((agent) => agent.id === 'builder')?.enabled).toBe(false)
    await store.getState().rotateToken('ghost')
    expect(store.getState()).toMatchObject({ error: { code: 'agent.not_found' }, issued: undefined })
  })

  it('creates an agent: the token is issued once and the list has it; a refused create keeps the code', async () => {
    const host = fakeHost()
    const store = createAgentsStore(host.client)
    await store.getState().load()
    expect(await store.getState().create({ agentId: 'coder' })).toBeUndefined()
    expect(store.getState()).toMatchObject({ saving: false, saveError: { code: 'agent.exists' }, issued: undefined })
    expect(await store.getState().create({ agentId: 'tester' })).toBe('tester')
    expect(store.getState()).toMatchObject({
      saving: false,
      saveError: undefined,
      issued: { agentId: 'tester', token: 'alk_new', workspace: '/ws/tester', reason: 'created' }
    })
    expect(store.getState().agents.map((agent) => agent.id)).toContain('tester')
    store.getState().dismissToken()
    expect(store.getState().issued).toBeUndefined()
  })

  it("loads the selected agent's pane and keeps the code of a part the host refused", async () => {
    const host = fakeHost()
    const store = createAgentsStore(host.client)
    host.refuse('agents.connection', { code: 'console.unavailable', message: 'The gateway is not listening.' })
    store.getState().select('coder')
    await vi.waitFor(() => expect(store.getState().recentCalls.status).toBe('ready'))
    await vi.waitFor(() => expect(store.getState().connection.status).toBe('error'))
    expect(store.getState()).toMatchObject({
      detail: { status: 'ready', value: { agent: { id: 'coder' } } },
      agentSessions: { status: 'ready', value: [{ id: 's1' }] },
      recentCalls: { value: { rows: [{ id: 'c1' }], total: 1 } },
      connection: { error: { code: 'console.unavailable', message: 'The gateway is not listening.' } }
    })
    store.getState().select(undefined)
    expect(store.getState()).toMatchObject({ selectedId: undefined, detail: { status: 'idle' } })
  })

  it('applies pushed events once the view has loaded: the list, the queue and the selected agent are read again', async () => {
    const host = fakeHost()
    const store = followedStore(host)
    host.push('agents.changed', { agentId: 'coder', change: 'updated' })
    expect(host.asked['agents.list']).toBeUndefined() // not loaded yet: nothing is read

    await store.getState().load()
    store.getState().select('coder')
    await vi.waitFor(() => expect(store.getState().detail.status).toBe('ready'))
    host.agents.set('coder', agentView('coder', { name: 'Coder Two' }))
    host.agents.set('tester', agentView('tester'))
    host.push('agents.changed', { agentId: 'coder', change: 'updated' })
    await vi.waitFor(() => expect(store.getState().agents.map((agent) => agent.id)).toContain('tester'))
    await vi.waitFor(() => expect(store.getState().detail.value?.agent.name).toBe('Coder Two'))

    host.pending.splice(0)
    host.push('approvals.changed', { external: false })
    await vi.waitFor(() => expect(store.getState().pending).toEqual([]))

    host.sessions.push(session('s3', 'coder', true))
    host.push('sessions.changed', { sessionId: 's3', agentId: 'coder', change: 'started' })
    await vi.waitFor(() => expect(store.getState().agentSessions.value?.map((s) => s.id)).toEqual(['s1', 's3']))
    expect(store.getState().sessions.map((s) => s.id)).toContain('s3')
  })

  it('after a finished call of the selected agent, reads its calls and its workspace again', async () => {
    const host = fakeHost()
    const store = followedStore(host)
    await store.getState().load()
    store.getState().select('coder')
    store.getState().openWorkspace()
    await vi.waitFor(() => expect(store.getState().changes.status).toBe('ready'))
    const recentBefore = host.asked['workspace.recent']
    host.calls.unshift(call('c2', 'coder', 9))
    host.push('history.changed', { id: 'c2', status: 'success' })
    await vi.waitFor(() => expect(store.getState().recentCalls.value?.total).toBe(2))
    await vi.waitFor(() => expect(host.asked['workspace.recent']).toBe(recentBefore! + 1))
    expect(store.getState().lastCalls.coder).toBe(at(9))
  })

  it('reads everything again after a reconnect (events sent meanwhile were lost), and stops when disposed', async () => {
    const host = fakeHost()
    const store = followedStore(host)
    await store.getState().load()
    store.getState().select('builder')
    await vi.waitFor(() => expect(store.getState().detail.status).toBe('ready'))
    // Changes made while the socket was down: no event arrives for them.
    host.agents.set('tester', agentView('tester'))
    host.agents.set('builder', agentView('builder', { name: 'Builder Two' }))
    host.pending.push({ id: 'p2', agentId: 'builder' })
    markViewsStale()
    await vi.waitFor(() => expect(store.getState().agents.map((agent) => agent.id)).toContain('tester'))
    await vi.waitFor(() => expect(store.getState().pending.map((item) => item.id)).toEqual(['p1', 'p2']))
    await vi.waitFor(() => expect(store.getState().detail.value?.agent.name).toBe('Builder Two'))

    stops.splice(0).forEach((stop) => stop())
    const listed = host.asked['agents.list']
    markViewsStale()
    host.push('agents.changed', { agentId: 'builder', change: 'updated' })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(host.asked['agents.list']).toBe(listed)
  })
})
