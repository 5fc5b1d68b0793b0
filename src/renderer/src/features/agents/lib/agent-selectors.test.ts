import type { AgentView } from '@shared/agents'
import type { SessionView } from '@shared/approvals'
import { describe, expect, it } from 'vitest'
import { activityOf, agentCounts, filterAgents, formatCreated, highestTaint, laterTime, mergeLastCalls, sortedAgents, taintTone } from './agent-selectors'

const agent = (id: string, createdAt: string, enabled = true, extra: Partial<AgentView> = {}): AgentView => ({
  id,
  name: id,
  role: null,
  enabled,
  profile: {},
  createdAt,
  updatedAt: createdAt,
  ...extra
})

const session = (id: string, agentId: string, extra: Partial<SessionView> = {}): SessionView => ({
  id,
  agentId,
  transport: 'http',
  taint: 'PUBLIC',
  startedAt: '2026-01-01T10:00:00Z',
  lastSeenAt: null,
  endedAt: null,
  endReason: null,
  open: true,
  ...extra
})

describe('agent selectors', () => {
  const agents = [
    agent('b', '2026-01-01T10:00:00Z'),
    agent('c', '2026-01-02T10:00:00Z', false),
    agent('a', '2026-01-01T10:00:00Z', true, { name: 'Research bot', role: 'analyst' })
  ]

  it('lists the newest first, ties by id, without touching the input', () => {
    expect(sortedAgents(agents).map((a) => a.id)).toEqual(['c', 'a', 'b'])
    expect(agents.map((a) => a.id)).toEqual(['b', 'c', 'a'])
  })

  it('counts enabled and disabled agents', () => {
    expect(agentCounts(agents)).toEqual({ total: 3, enabled: 2, disabled: 1 })
    expect(agentCounts([])).toEqual({ total: 0, enabled: 0, disabled: 0 })
  })

  it('filters by every word over id, name and role', () => {
    expect(filterAgents(agents, '').map((a) => a.id)).toEqual(['b', 'c', 'a'])
    expect(filterAgents(agents, 'research').map((a) => a.id)).toEqual(['a'])
    expect(filterAgents(agents, 'ANALYST bot').map((a) => a.id)).toEqual(['a'])
    expect(filterAgents(agents, 'analyst nobody')).toEqual([])
  })

  it('formats a time to the minute, and leaves an unparsable one as it is', () => {
    expect(formatCreated('2026-03-04T05:06:07Z')).toMatch(/^2026-03-0[45] \d\d:\d\d$/)
    expect(formatCreated('yesterday')).toBe('yesterday')
  })

  it('picks the later of two times and the highest taint', () => {
    expect(laterTime('2026-01-01T10:00:00Z', '2026-01-01T09:00:00Z')).toBe('2026-01-01T10:00:00Z')
    expect(laterTime(null, '2026-01-01T09:00:00Z')).toBe('2026-01-01T09:00:00Z')
    expect(laterTime(undefined, null)).toBeNull()
    expect(highestTaint([])).toBeNull()
    expect(highestTaint([{ taint: 'INTERNAL' }, { taint: 'RESTRICTED' }, { taint: 'PUBLIC' }])).toBe('RESTRICTED')
    expect(taintTone('RESTRICTED')).toBe('bad')
    expect(taintTone(null)).toBe('neutral')
  })

  it('says what an agent is doing from its own sessions, pending items and last call', () => {
    const sessions = [
      session('s1', 'b', { taint: 'CONFIDENTIAL', lastSeenAt: '2026-01-03T12:00:00Z' }),
      session('s2', 'b', { open: false, endedAt: '2026-01-02T08:00:00Z' }),
      session('s3', 'a', { taint: 'RESTRICTED' })
    ]
    const pending = [{ agentId: 'b' }, { agentId: 'b' }, { agentId: 'a' }, { agentId: null }]
    expect(activityOf(agents[0]!, sessions, pending, '2026-01-03T11:00:00Z')).toEqual({
      state: 'connected',
      openSessions: 1,
      taint: 'CONFIDENTIAL',
      pending: 2,
      lastActivity: '2026-01-03T12:00:00Z'
    })
    // The last recorded call counts when it is newer than any session activity.
    expect(activityOf(agents[0]!, sessions, pending, '2026-01-04T00:00:00Z').lastActivity).toBe('2026-01-04T00:00:00Z')
    expect(activityOf(agents[1]!, sessions, pending, undefined)).toEqual({ state: 'disabled', openSessions: 0, taint: null, pending: 0, lastActivity: null })
    expect(activityOf(agent('x', '2026-01-01T00:00:00Z', true, { profileError: 'bad' }), [], [], undefined).state).toBe('invalid')
    expect(activityOf(agent('y', '2026-01-01T00:00:00Z'), [], [], undefined).state).toBe('idle')
  })

  it('keeps the newest call start per agent across pages', () => {
    const known = { a: '2026-01-01T10:00:00Z' }
    const merged = mergeLastCalls(known, [
      { agentId: 'a', startedAt: '2026-01-02T10:00:00Z' },
      { agentId: 'b', startedAt: '2026-01-01T08:00:00Z' },
      { agentId: 'a', startedAt: '2025-12-31T10:00:00Z' },
      { agentId: null, startedAt: '2026-01-05T00:00:00Z' }
    ])
    expect(merged).toEqual({ a: '2026-01-02T10:00:00Z', b: '2026-01-01T08:00:00Z' })
    expect(known).toEqual({ a: '2026-01-01T10:00:00Z' })
  })
})
