import { describe, expect, it } from 'vitest'
import { filterInputOf, hasFilters, isoOrBlank, listInputOf, localInputOf, noFilters, queryOf, sameFilters, timeRangeOf, urlStateOf } from './filters'

describe('history filters', () => {
  it('leaves blank filters out of the contract input and trims text', () => {
    expect(filterInputOf(noFilters)).toEqual({})
    expect(filterInputOf({ ...noFilters, agentId: 'coder', tool: ' run_command ', text: '  curl  ', status: 'error' })).toEqual({
      agentId: 'coder',
      tool: 'run_command',
      status: 'error',
      text: 'curl'
    })
    expect(filterInputOf({ ...noFilters, text: '   ' })).toEqual({})
  })

  it('asks a small first page and full pages after a cursor', () => {
    expect(listInputOf(noFilters)).toEqual({ limit: 200 })
    expect(listInputOf({ ...noFilters, providerId: 'docker' }, 4242)).toEqual({ providerId: 'docker', cursor: 4242, limit: 500 })
    expect(listInputOf(noFilters, undefined, 500)).toEqual({ limit: 500 })
  })

  it('knows when filters ask the same question', () => {
    expect(hasFilters(noFilters)).toBe(false)
    expect(hasFilters({ ...noFilters, since: '2026-01-01T00:00:00.000Z' })).toBe(true)
    expect(sameFilters({ ...noFilters, text: 'curl ' }, { ...noFilters, text: 'curl' })).toBe(true)
    expect(sameFilters({ ...noFilters, tool: 'read_file' }, noFilters)).toBe(false)
  })

  it('round-trips the view state through the URL query', () => {
    const state = {
      filters: { ...noFilters, agentId: 'coder', status: 'blocked' as const, providerId: 'bubblewrap', since: '2026-01-02T03:04:05.000Z', text: 'curl sh' },
      id: 'call-1'
    }
    const query = queryOf(state)
    expect(query).toBe('agent=coder&status=blocked&provider=bubblewrap&since=2026-01-02T03%3A04%3A05.000Z&q=curl+sh&id=call-1')
    expect(urlStateOf(query)).toEqual(state)
    expect(queryOf({ filters: noFilters })).toBe('')
  })

  it('drops what the host would refuse from a hand-edited URL', () => {
    const { filters, id } = urlStateOf('status=exploded&since=yesterday&until=2026-01-02T03:04:05%2B02:00&agent=' + 'a'.repeat(300))
    expect(filters.status).toBe('')
    expect(filters.since).toBe('')
    expect(filters.until).toBe('2026-01-02T01:04:05.000Z')
    expect(filters.agentId).toHaveLength(200)
    expect(id).toBeUndefined()
  })

  it('turns a time preset into a since relative to now; any clears, custom keeps', () => {
    const now = Date.parse('2026-03-01T12:00:00.000Z')
    expect(timeRangeOf('1h', now, { since: '', until: 'x' })).toEqual({ since: '2026-03-01T11:00:00.000Z', until: '' })
    expect(timeRangeOf('any', now, { since: 'a', until: 'b' })).toEqual({ since: '', until: '' })
    expect(timeRangeOf('custom', now, { since: 'a', until: 'b' })).toEqual({ since: 'a', until: 'b' })
  })

  it('converts between ISO and the local datetime input', () => {
    const iso = isoOrBlank(localInputOf('2026-03-01T12:34:56.000Z'))
    expect(iso).toBe('2026-03-01T12:34:00.000Z')
    expect(localInputOf('')).toBe('')
    expect(isoOrBlank('not a time')).toBe('')
  })
})
