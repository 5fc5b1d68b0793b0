import { describe, expect, it } from 'vitest'
import { agentProfileDefaults, type AgentProfile, type RoleDefaults } from '@shared/agents'
import { ceilingClamps, resolveProfile } from './role-ceiling'

const role = (defaults: RoleDefaults) => ({ id: 'ci', defaults })
const paths = (profile: AgentProfile, defaults: RoleDefaults) => ceilingClamps(profile, role(defaults)).map((c) => c.path)

describe('resolveProfile: inheritance', () => {
  it('without a role: the agent values over the product defaults, nothing clamped', () => {
    const { profile, clamped } = resolveProfile({ network: 'full', isolation: 'none', limits: { pids: 9999 } })
    expect(profile).toEqual({ ...agentProfileDefaults, network: 'full', isolation: 'none', limits: { ...agentProfileDefaults.limits, pids: 9999 } })
    expect(clamped).toEqual([])
  })

  it('with a role: agent over role over defaults, limits key by key, both denylists apply', () => {
    const defaults: RoleDefaults = { network: 'proxy', ask: 'always', limits: { timeoutSeconds: 600, memoryMb: 2048 }, denylist: ['git push'] }
    const { profile, clamped } = resolveProfile({ network: 'none', limits: { memoryMb: 512 }, denylist: ['npm publish'] }, role(defaults))
    expect(clamped).toEqual([])
    expect(profile).toMatchObject({
      role: 'ci',
      network: 'none',
      ask: 'always',
      isolation: 'required',
      limits: { ...agentProfileDefaults.limits, timeoutSeconds: 600, memoryMb: 512 },
      denylist: ['git push', 'npm publish']
    })
  })
})

describe('ceilingClamps: what an agent of a role may not have', () => {
  const cases: [string, AgentProfile, RoleDefaults, string[]][] = [
    ['a capability the role lacks', { capabilities: ['files', 'browser'] }, { capabilities: ['files', 'shell'] }, ['capabilities.1']],
    ['a capability beyond the product defaults when the role says nothing', { capabilities: ['browser'] }, {}, ['capabilities.0']],
    ['a provider the role does not list', { providers: ['trusted_local'] }, {}, ['providers.0']],
    ['weaker isolation', { isolation: 'preferred' }, {}, ['isolation']],
    ['weaker isolation than a preferring role', { isolation: 'none' }, { isolation: 'preferred' }, ['isolation']],
    ['asking less', { ask: 'never' }, { ask: 'on_risk' }, ['ask']],
    ['a wider network', { network: 'full' }, { network: 'proxy' }, ['network']],
    ['any network when the role says nothing', { network: 'proxy' }, {}, ['network']],
    ['unsafe fallback the role does not allow', { isolation: 'none', unsafeFallback: true }, { isolation: 'none' }, ['unsafeFallback']],
    ['unsafe local execution the role does not allow', { allowUnsafeLocal: true }, {}, ['allowUnsafeLocal']],
    ['a limit above the role', { limits: { pids: 512, memoryMb: 100 } }, { limits: { pids: 256 } }, ['limits.pids']],
    ['a limit above the product default when the role says nothing', { limits: { timeoutSeconds: 121 } }, {}, ['limits.timeoutSeconds']],
    ['a higher classification', { classificationCeiling: 'RESTRICTED' }, { classificationCeiling: 'CONFIDENTIAL' }, ['classificationCeiling']],
    ['a runtime the role does not list', { runtimes: ['python', 'go'] }, { runtimes: ['python'] }, ['runtimes.1']],
    ['any runtime when the role lists some', { runtimes: [] }, { runtimes: ['python'] }, ['runtimes']],
    ['an allowlist entry outside the role', { allowlist: ['git status', 'gitk', 'rm'] }, { allowlist: ['git', 'ls'] }, ['allowlist.1', 'allowlist.2']],
    ['no allowlist when the role has one', { allowlist: [] }, { allowlist: ['ls'] }, ['allowlist']],
    [
      'an unsafe MCP server without allowUnsafeLocal',
      { capabilities: ['mcp'], mcpServers: [{ name: 'fs', command: ['srv'], unsafe: true }] },
      { capabilities: ['mcp'] },
      ['mcpServers.0.unsafe']
    ],
    [
      'a networked MCP server under a role without network',
      { capabilities: ['mcp'], mcpServers: [{ name: 'web', command: ['srv'], network: 'full' }] },
      { capabilities: ['mcp'] },
      ['mcpServers.0.network']
    ],
    [
      'a proxied MCP server under a role without network',
      { capabilities: ['mcp'], mcpServers: [{ name: 'web', command: ['srv'], network: 'proxy' }] },
      { capabilities: ['mcp'] },
      ['mcpServers.0.network']
    ],
    [
      'a networked MCP server under a role with network proxy',
      { capabilities: ['mcp'], mcpServers: [{ name: 'web', command: ['srv'], network: 'full' }] },
      { capabilities: ['mcp'], network: 'proxy' },
      ['mcpServers.0.network']
    ]
  ]
  for (const [what, profile, defaults, expected] of cases) {
    it(`refuses ${what}`, () => expect(paths(profile, defaults)).toEqual(expected))
  }

  const allowed: [string, AgentProfile, RoleDefaults][] = [
    ['the role defaults themselves', {}, { network: 'proxy', isolation: 'preferred', unsafeFallback: true }],
    [
      'stricter values everywhere',
      { isolation: 'required', ask: 'always', network: 'none', limits: { pids: 1 }, classificationCeiling: 'PUBLIC', capabilities: [] },
      { network: 'full', isolation: 'none' }
    ],
    [
      'what the role allows explicitly',
      { allowUnsafeLocal: true, providers: ['trusted_local'], network: 'full' },
      { allowUnsafeLocal: true, providers: ['bubblewrap', 'trusted_local'], network: 'full' }
    ],
    ['any runtime and allowlist when the role lists none', { runtimes: ['go'], allowlist: ['make'] }, {}],
    ['a narrower allowlist', { allowlist: ['git status'] }, { allowlist: ['git'] }],
    [
      'an unsafe MCP server the role allows',
      { capabilities: ['mcp'], mcpServers: [{ name: 'fs', command: ['srv'], unsafe: true }] },
      { capabilities: ['mcp'], allowUnsafeLocal: true }
    ],
    [
      'a networked MCP server under a role with network full',
      { capabilities: ['mcp'], network: 'full', mcpServers: [{ name: 'web', command: ['srv'], network: 'full' }] },
      { capabilities: ['mcp'], network: 'full' }
    ],
    [
      'a proxied MCP server under a role with network proxy',
      { capabilities: ['mcp'], mcpServers: [{ name: 'web', command: ['srv'], network: 'proxy' }] },
      { capabilities: ['mcp'], network: 'proxy' }
    ]
  ]
  for (const [what, profile, defaults] of allowed) {
    it(`accepts ${what}`, () => expect(ceilingClamps(profile, role(defaults))).toEqual([]))
  }

  it('names the role and both values in each message', () => {
    expect(ceilingClamps({ network: 'full' }, role({ network: 'proxy' }))).toEqual([{ path: 'network', message: '"full" is wider than "proxy" (role ci)' }])
  })
})

describe('resolveProfile: a role tightened after its agents were saved clamps them', () => {
  it('caps every value at the role and reports each clamp', () => {
    const saved: AgentProfile = {
      capabilities: ['files', 'shell', 'browser'],
      network: 'full',
      isolation: 'none',
      unsafeFallback: true,
      limits: { pids: 1000 },
      runtimes: ['go'],
      allowlist: ['git status']
    }
    const tightened: RoleDefaults = {
      capabilities: ['files', 'shell'],
      network: 'proxy',
      isolation: 'preferred',
      limits: { pids: 100 },
      runtimes: ['python'],
      allowlist: ['ls']
    }
    const { profile, clamped } = resolveProfile(saved, role(tightened))
    expect(profile).toMatchObject({
      capabilities: ['files', 'shell'],
      network: 'proxy',
      isolation: 'preferred',
      unsafeFallback: false,
      limits: { pids: 100 },
      runtimes: ['python'],
      allowlist: ['ls']
    })
    expect(clamped.map((c) => c.path)).toEqual(['capabilities.2', 'isolation', 'network', 'unsafeFallback', 'limits.pids', 'runtimes.0', 'allowlist.0'])
  })

  it('a list emptied by clamping takes the role list, never "any"', () => {
    expect(resolveProfile({ providers: ['trusted_local'] }, role({ providers: ['bubblewrap'] })).profile.providers).toEqual(['bubblewrap'])
  })

  it('drops an unsafe fallback that isolation "required" makes meaningless', () => {
    const { profile } = resolveProfile({ isolation: 'required' }, role({ isolation: 'preferred', unsafeFallback: true }))
    expect(profile).toMatchObject({ isolation: 'required', unsafeFallback: false })
  })
})
