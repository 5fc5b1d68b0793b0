import { describe, expect, it } from 'vitest'
import { ageOf, eventFacts, eventLabel } from './resource-format'

describe('resource formatting', () => {
  it('shortens event types for the stream', () => {
    expect(eventLabel('execution_resource.ready')).toBe('ready')
    expect(eventLabel('policy.approval.denied')).toBe('approval denied')
  })

  it('formats ages', () => {
    const now = Date.parse('2026-01-01T12:00:00Z')
    expect(ageOf('2026-01-01T11:59:30Z', now)).toBe('30s')
    expect(ageOf('2026-01-01T11:15:00Z', now)).toBe('45m')
    expect(ageOf('2026-01-01T09:30:00Z', now)).toBe('2h 30m')
    expect(ageOf('2025-12-29T12:00:00Z', now)).toBe('3d')
  })

  it('lists the facts of an event, never its whole payload', () => {
    expect(
      eventFacts({ kind: 'code_execution', providerId: 'docker', scope: 'session', ownerId: 's-1', handleId: '0123456789abcdef', reuseKeyHash: 'x' })
    ).toEqual(['code_execution', 'via docker', 'session s-1', '#01234567'])
    expect(eventFacts({ kind: 'sqlite', providerId: 'sqlite' })).toEqual(['sqlite'])
    expect(eventFacts({ scope: 'global', nested: { a: 1 } })).toEqual(['global'])
  })
})
