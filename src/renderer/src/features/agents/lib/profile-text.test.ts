import { describe, expect, it } from 'vitest'
import { sourceOf } from './profile-text'

describe('where a profile value comes from', () => {
  const agent = { profile: { ask: 'always' as const, limits: { pids: 32 } } }
  const role = { defaults: { network: 'proxy' as const, limits: { memoryMb: 512 } } }

  it('says agent, role or default, key by key and limit by limit', () => {
    expect(sourceOf('ask', agent, role)).toBe('agent')
    expect(sourceOf('network', agent, role)).toBe('role')
    expect(sourceOf('isolation', agent, role)).toBe('default')
    expect(sourceOf('limits.pids', agent, role)).toBe('agent')
    expect(sourceOf('limits.memoryMb', agent, role)).toBe('role')
    expect(sourceOf('limits.diskMb', agent, role)).toBe('default')
    expect(sourceOf('network', agent, undefined)).toBe('default')
  })
})
