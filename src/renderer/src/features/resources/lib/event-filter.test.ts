import { describe, expect, it } from 'vitest'
import { eventMatches, eventTone, filterEvents, filtersFromHash, hashWithFilters, typeFilterOptions } from './event-filter'

const at = '2026-01-01T00:00:00Z'
const events = [
  { type: 'execution_resource.released', payload: { handleId: 'h1', kind: 'scratch_directory', ownerId: 'session-42' }, at },
  { type: 'policy.approval.denied', payload: { reason: 'operator said no', kind: 'docker' }, at },
  { type: 'execution_resource.failed', payload: { handleId: 'h2', providerId: 'docker', error: 'engine down' }, at }
]

describe('event stream filters', () => {
  it('filters by type prefix and by text over the type and payload', () => {
    expect(filterEvents(events, { type: 'execution_resource.', text: '' }).map((e) => e.payload.handleId)).toEqual(['h1', 'h2'])
    expect(filterEvents(events, { type: 'policy.approval.denied', text: '' })).toHaveLength(1)
    expect(filterEvents(events, { type: '', text: 'ENGINE' }).map((e) => e.payload.handleId)).toEqual(['h2'])
    expect(filterEvents(events, { type: '', text: 'session-42' })).toHaveLength(1)
    expect(filterEvents(events, { type: 'execution_resource.', text: 'docker' })).toHaveLength(1)
    expect(eventMatches(events[1]!, { type: '', text: 'denied' })).toBe(true)
    expect(filterEvents(events, { type: '', text: '  ' })).toHaveLength(3)
  })

  it('offers families, then every known or seen type', () => {
    const options = typeFilterOptions([{ type: 'custom.thing.happened', payload: {}, at }])
    expect(options[0]).toEqual({ value: '', label: 'All events' })
    expect(options.map((o) => o.value)).toContain('execution_resource.')
    expect(options.map((o) => o.value)).toContain('policy.approval.')
    expect(options.map((o) => o.value)).toContain('custom.thing.happened')
    expect(options.map((o) => o.value)).toContain('execution_resource.ready')
  })

  it('keeps the filters in the hash query with other keys intact', () => {
    expect(filtersFromHash('#/resources?type=policy.approval.&q=docker')).toEqual({ type: 'policy.approval.', text: 'docker' })
    expect(filtersFromHash('#/resources')).toEqual({ type: '', text: '' })
    expect(hashWithFilters('#/resources?x=1', { type: 'execution_resource.', text: 'a b' })).toBe('#/resources?x=1&type=execution_resource.&q=a+b')
    expect(hashWithFilters('#/resources?type=a&q=b', { type: '', text: '' })).toBe('#/resources')
  })

  it('gives failures and denials a bad tone, readiness ok', () => {
    expect(eventTone('execution_resource.failed')).toBe('bad')
    expect(eventTone('policy.approval.denied')).toBe('bad')
    expect(eventTone('execution_resource.ready')).toBe('ok')
    expect(eventTone('execution_resource.approval_required')).toBe('warn')
    expect(eventTone('execution_resource.declared')).toBe('info')
  })
})
