import type { AgentView } from '@shared/agents'
import { describe, expect, it } from 'vitest'
import { agentCounts, agentIdProblem, formatCreated, sortedAgents } from './agent-selectors'

const agent = (id: string, createdAt: string, enabled = true): AgentView => ({ id, name: id, role: null, enabled, profile: {}, createdAt, updatedAt: createdAt })

describe('agent selectors', () => {
  const agents = [agent('b', '2026-01-01T10:00:00Z'), agent('c', '2026-01-02T10:00:00Z', false), agent('a', '2026-01-01T10:00:00Z')]

  it('lists the newest first, ties by id', () => {
    expect(sortedAgents(agents).map((a) => a.id)).toEqual(['c', 'a', 'b'])
    expect(agents.map((a) => a.id)).toEqual(['b', 'c', 'a'])
  })

  it('counts enabled and disabled agents', () => {
    expect(agentCounts(agents)).toEqual({ total: 3, enabled: 2, disabled: 1 })
    expect(agentCounts([])).toEqual({ total: 0, enabled: 0, disabled: 0 })
  })

  it('says why an id cannot be used, with the rules main checks', () => {
    expect(agentIdProblem('', agents)).toBe('Give the agent an id.')
    expect(agentIdProblem('Coder', agents)).toMatch(/^The id must be a slug/)
    expect(agentIdProblem('-x', agents)).toMatch(/must be a slug/)
    expect(agentIdProblem('background', agents)).toMatch(/reserved/)
    expect(agentIdProblem('a', agents)).toBe('An agent with the id a already exists.')
    expect(agentIdProblem('coder-2', agents)).toBeUndefined()
  })

  it('formats a creation time to the minute, and leaves an unparsable one as it is', () => {
    expect(formatCreated('2026-03-04T05:06:07Z')).toMatch(/^2026-03-0[45] \d\d:\d\d$/)
    expect(formatCreated('yesterday')).toBe('yesterday')
  })
})
