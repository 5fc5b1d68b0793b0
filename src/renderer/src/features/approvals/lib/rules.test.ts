import { describe, expect, it } from 'vitest'
import { matcherFacts, parseMatcherJson, ruleScopeLabel, ruleState, rulesInOrder } from './rules'

describe('rule helpers', () => {
  it('lists what a command matcher covers, command by command', () => {
    expect(matcherFacts({ kind: 'command', commands: [{ prefix: ['npm', 'test'] }, { prefix: ['echo'], args: 'done *' }] })).toEqual([
      { label: 'Command 1', tokens: ['npm', 'test'], text: 'nothing more may follow' },
      { label: 'Command 2', tokens: ['echo'], glob: 'done *' }
    ])
    expect(matcherFacts({ kind: 'tool', tool: 'fetch', args: {} })[1]).toEqual({ label: 'Input', text: 'no input fields' })
    expect(matcherFacts({ kind: 'domain', host: '*.example.com' })[1]).toEqual({ label: 'Port', text: 'any port' })
  })

  it('validates an edited matcher with the shared schema and says what is wrong', () => {
    expect(parseMatcherJson('{"kind":"path","subtree":"src","tools":["write_file"]}')).toEqual({
      ok: true,
      matcher: { kind: 'path', subtree: 'src', tools: ['write_file'] }
    })
    expect(parseMatcherJson('{"kind":"path","subtree":"../etc","tools":["write_file"]}')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^subtree: .*without \.\./)
    })
    expect(parseMatcherJson('{nope')).toMatchObject({ ok: false, error: expect.stringMatching(/^Not JSON/) })
  })

  it('knows a rule’s state and scope, and lists active rules first', () => {
    const now = Date.parse('2024-01-02T00:00:00Z')
    const base = { revokedAt: null, expiresAt: null, createdAt: '2024-01-01T00:00:00Z', scope: 'agent' as const, agentId: 'coder', sessionId: null }
    expect(ruleState(base, now)).toBe('active')
    expect(ruleState({ ...base, expiresAt: '2024-01-01T12:00:00Z' }, now)).toBe('expired')
    expect(ruleState({ ...base, revokedAt: '2024-01-01T12:00:00Z' }, now)).toBe('revoked')
    expect(ruleScopeLabel(base)).toBe('coder')
    expect(ruleScopeLabel({ ...base, scope: 'global', agentId: null })).toBe('every agent')
    const rules = [
      { ...base, id: 'old-revoked', revokedAt: '2024-01-01T01:00:00Z', createdAt: '2024-01-01T10:00:00Z' },
      { ...base, id: 'older', createdAt: '2024-01-01T00:00:00Z' },
      { ...base, id: 'newer', createdAt: '2024-01-01T05:00:00Z' }
    ] as never
    expect(rulesInOrder(rules, now).map((rule: { id: string }) => rule.id)).toEqual(['newer', 'older', 'old-revoked'])
  })
})
