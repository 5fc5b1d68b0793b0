import type { HistoryRow } from '@shared/ipc/history'
import { describe, expect, it } from 'vitest'
import { agentOptions, nothingSeen, providerOptions, toolOptions, withSeen } from './options'

const rows = [
  { agentId: 'removed-agent', tool: 'github__create_issue', providerId: null },
  { agentId: null, tool: 'run_command', providerId: 'docker' }
] as HistoryRow[]

describe('filter options', () => {
  it('remembers every value seen in any page, and keeps the same object when nothing is new', () => {
    const seen = withSeen(nothingSeen, rows)
    expect(seen).toEqual({ agentIds: ['removed-agent'], tools: ['github__create_issue', 'run_command'], providerIds: ['docker'] })
    expect(withSeen(seen, rows)).toBe(seen)
    expect(withSeen(seen, [{ agentId: 'coder', tool: 'run_command', providerId: 'docker' }] as HistoryRow[]).agentIds).toEqual(['removed-agent', 'coder'])
  })

  it('merges registered values, values seen and the selected one, sorted', () => {
    const seen = withSeen(nothingSeen, rows)
    expect(agentOptions(['coder'], seen, 'from-link')).toEqual(['coder', 'from-link', 'removed-agent'])
    expect(providerOptions(['bubblewrap', 'docker'], seen, '')).toEqual(['bubblewrap', 'docker'])
    expect(toolOptions(seen, '')).toContain('github__create_issue')
    expect(toolOptions(seen, '')).toContain('write_file')
  })
})
