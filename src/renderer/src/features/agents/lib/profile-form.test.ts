import { agentProfileDefaults, type AgentView } from '@shared/agents'
import { describe, expect, it } from 'vitest'
import { fieldOfIssue, formValuesFrom, inheritedProfile, parseProfileForm, profileFromValues } from './profile-form'

const inherited = inheritedProfile(undefined)
const blank = () => formValuesFrom(undefined, inherited)

describe('profile form', () => {
  it('inherits the role defaults over Airlock defaults, limits merged key by key', () => {
    expect(inherited).toEqual(agentProfileDefaults)
    const role = inheritedProfile({ defaults: { ask: 'always', limits: { pids: 64 } } })
    expect(role.ask).toBe('always')
    expect(role.limits).toEqual({ ...agentProfileDefaults.limits, pids: 64 })
  })

  it('sends nothing a new agent did not set: an empty form is an empty profile', () => {
    const parsed = parseProfileForm({ ...blank(), agentId: 'coder' }, 'create')
    expect(parsed).toEqual({ ok: true, input: { agentId: 'coder', profile: {} } })
  })

  it('parses what was set into the profile main would store', () => {
    const values = {
      ...blank(),
      agentId: ' coder ',
      name: 'Coding assistant',
      inheritCapabilities: false,
      capabilities: ['files' as const, 'python' as const],
      isolation: 'preferred',
      unsafeFallback: 'true' as const,
      allowUnsafeLocal: 'true' as const,
      limits: { ...blank().limits, pids: '64', timeoutSeconds: '30' },
      denylist: 'curl\n\n  ssh  \n',
      labels: '{"paths": {"secrets/**": "RESTRICTED"}}'
    }
    const parsed = parseProfileForm(values, 'create')
    expect(parsed).toEqual({
      ok: true,
      input: {
        agentId: 'coder',
        name: 'Coding assistant',
        profile: {
          capabilities: ['files', 'python'],
          isolation: 'preferred',
          unsafeFallback: true,
          allowUnsafeLocal: true,
          limits: { timeoutSeconds: 30, pids: 64 },
          denylist: ['curl', 'ssh'],
          labels: { paths: { 'secrets/**': 'RESTRICTED' } }
        }
      }
    })
  })

  it('puts each schema message at its field', () => {
    const parsed = parseProfileForm(
      { ...blank(), agentId: 'Coder', limits: { ...blank().limits, pids: '0', memoryMb: 'lots' }, mcpServers: '[{"name":"Bad Name","url":"https://x.test"}]' },
      'create'
    )
    expect(parsed.ok).toBe(false)
    if (parsed.ok) return
    expect(parsed.errors.agentId).toMatch(/must be a slug/)
    expect(parsed.errors['limits.pids']).toMatch(/Too small/)
    expect(parsed.errors['limits.memoryMb']).toMatch(/expected number/)
    expect(parsed.errors.mcpServers).toMatch(/^0\.name: must be a short slug/)
    expect(Object.keys(parsed.errors).sort()).toEqual(['agentId', 'limits.memoryMb', 'limits.pids', 'mcpServers'])
    // Checks across keys run once every field parses (as main runs them).
    const across = parseProfileForm({ ...blank(), agentId: 'coder', unsafeFallback: 'true', isolation: 'required' }, 'create')
    expect(across).toEqual({ ok: false, errors: { unsafeFallback: 'unsafeFallback is only valid with isolation "preferred" or "none"' } })
  })

  it('says where JSON does not parse and which id is taken', () => {
    const parsed = parseProfileForm({ ...blank(), agentId: 'coder', labels: '{oops' }, 'create', ['coder'])
    expect(parsed.ok).toBe(false)
    if (parsed.ok) return
    expect(parsed.errors.labels).toMatch(/^not valid JSON/)
    expect(parsed.errors.agentId).toBe('An agent with the id coder already exists.')
  })

  it('edits the stored profile: it round-trips, and clearing the role sends null', () => {
    const agent: AgentView = {
      id: 'coder',
      name: 'coder',
      role: 'dev',
      enabled: true,
      profile: {
        providers: ['docker', 'bubblewrap'],
        network: 'proxy',
        mcpServers: [{ name: 'gh', url: 'https://gh.test', headers: { Authorization: '<redacted>' } }]
      },
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z'
    }
    const values = formValuesFrom(agent, inherited)
    expect(values.providers.map((p) => `${p.id}:${p.on}`)).toEqual(['docker:true', 'bubblewrap:true', 'gvisor:false', 'trusted_local:false', 'bash:false'])
    expect(profileFromValues(values).profile).toEqual(agent.profile)
    const parsed = parseProfileForm({ ...values, role: '' }, 'edit')
    expect(parsed).toEqual({ ok: true, input: { agentId: 'coder', role: null, profile: agent.profile } })
  })

  it('maps issue paths to fields', () => {
    expect(fieldOfIssue(['profile', 'limits', 'pids'])).toBe('limits.pids')
    expect(fieldOfIssue(['profile', 'mcpServers', 2, 'name'])).toBe('mcpServers')
    expect(fieldOfIssue(['agentId'])).toBe('agentId')
    expect(fieldOfIssue([])).toBe('')
  })
})
