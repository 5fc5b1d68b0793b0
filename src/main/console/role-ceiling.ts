import {
  agentProfileDefaults,
  classificationRank,
  higherClassification,
  type AgentProfile,
  type Classification,
  type ClassificationLabels,
  type CeilingClamp,
  type EffectiveAgentProfile,
  type RoleDefaults
} from '@shared/agents'

/**
 * How an agent's profile becomes its effective profile, and what a role allows.
 *
 * Inheritance: the agent's own values over its role's defaults over `agentProfileDefaults`
 * (limits key by key), whose provider order is the operator's (`operatorDefaults`, passed in). Without a role, that is all: the operator decided each value.
 *
 * Ceiling: an agent that has a role gets at most what the role's *effective* defaults (the role's
 * values over the product defaults) allow, so a role that leaves a key out still caps it at the
 * product default (a role that says nothing about network keeps its agents at `none`). Per key:
 * - `capabilities`, `providers`: a subset of the role's;
 * - `isolation` at least as strict (required > preferred > none); `ask` at least as strict
 *   (always > on_risk > never); `network` no wider (none < proxy < full);
 * - `unsafeFallback`, `allowUnsafeLocal`: true only when the role's is true; an MCP server marked
 *   `unsafe` (it would run outside any sandbox) only when the role's `allowUnsafeLocal` is true;
 * - every limit and `classificationCeiling` at most the role's;
 * - `runtimes` and `allowlist`: when the role lists any, the agent's entries must be within them
 *   (an allowlist entry is within a role entry it equals or extends by more words); an empty list,
 *   which means "any", is then wider than the role's;
 * - `denylist` and `protectedPaths`: the role's always apply, in addition to the agent's; so do its `labels` (the
 *   higher level wins where both label the same thing);
 * - an MCP server's `network` no wider than the role's (a wider one is clamped to the role's);
 * - `approvalTimeoutSeconds` and `mcpServers` (beyond `unsafe` and `network`) are the agent's to choose.
 * An agent profile beyond its role is refused when saved (`ceilingClamps` names each field);
 * a role tightened later clamps its agents here, and the clamps are reported. When clamping would
 * empty a list whose emptiness means "no restriction" (providers, runtimes, allowlist), the role's
 * list applies instead: the result may differ from the agent's own choice but never exceeds the role.
 */
export function resolveProfile(
  profile: AgentProfile,
  role?: { id: string; defaults: RoleDefaults },
  defaults: EffectiveAgentProfile = agentProfileDefaults
): { profile: EffectiveAgentProfile; clamped: CeilingClamp[] } {
  const base = role ? inherit(defaults, role.defaults) : defaults
  const { role: _ignored, ...own } = profile
  const merged = inherit(base, own)
  if (!role) return { profile: finish(merged), clamped: [] }
  const clamped: CeilingClamp[] = []
  const clamp = (path: string, message: string) => clamped.push({ path, message: `${message} (role ${role.id})` })
  const result = applyCeiling(merged, base, own, clamp)
  return { profile: finish({ ...result, role: role.id }), clamped }
}

/** The fields of an agent's own profile that exceed its role: empty when it fits. */
export function ceilingClamps(profile: AgentProfile, role: { id: string; defaults: RoleDefaults }, defaults?: EffectiveAgentProfile): CeilingClamp[] {
  return resolveProfile(profile, role, defaults).clamped
}

/** Labels of both, the higher level where both name the same thing: a label is a restriction, never lowered. */
function joinLabels(a: ClassificationLabels, b: ClassificationLabels): ClassificationLabels {
  const out: ClassificationLabels = {}
  for (const kind of ['paths', 'databases', 'domains', 'mcpServers'] as const) {
    const merged: Record<string, Classification> = { ...a[kind] }
    for (const [key, level] of Object.entries(b[kind] ?? {})) merged[key] = merged[key] ? higherClassification(merged[key], level) : level
    if (Object.keys(merged).length > 0) out[kind] = merged
  }
  return out
}

/** Overlays `own` on `base`: limits key by key, denylists and labels joined, everything else replaced. */
function inherit(base: EffectiveAgentProfile, own: Omit<AgentProfile, 'role'>): EffectiveAgentProfile {
  const defined = Object.fromEntries(Object.entries(own).filter(([, value]) => value !== undefined)) as Omit<AgentProfile, 'role'>
  return {
    ...base,
    ...defined,
    limits: { ...base.limits, ...defined.limits },
    denylist: union(base.denylist, defined.denylist ?? []),
    protectedPaths: union(base.protectedPaths, defined.protectedPaths ?? []),
    labels: joinLabels(base.labels, defined.labels ?? {})
  }
}

const isolationStrictness = { none: 0, preferred: 1, required: 2 } as const
const askStrictness = { never: 0, on_risk: 1, always: 2 } as const
const networkWidth = { none: 0, proxy: 1, full: 2 } as const

function applyCeiling(
  value: EffectiveAgentProfile,
  ceiling: EffectiveAgentProfile,
  own: Omit<AgentProfile, 'role'>,
  clamp: (path: string, message: string) => void
): EffectiveAgentProfile {
  const out: EffectiveAgentProfile = { ...value, limits: { ...value.limits } }
  out.capabilities = subset('capabilities', value.capabilities, ceiling.capabilities, clamp)
  out.providers = subset('providers', value.providers, ceiling.providers, clamp)
  if (out.providers.length === 0) out.providers = ceiling.providers
  if (isolationStrictness[value.isolation] < isolationStrictness[ceiling.isolation]) {
    clamp('isolation', `"${value.isolation}" is less strict than "${ceiling.isolation}"`)
    out.isolation = ceiling.isolation
  }
  if (askStrictness[value.ask] < askStrictness[ceiling.ask]) {
    clamp('ask', `"${value.ask}" asks less than "${ceiling.ask}"`)
    out.ask = ceiling.ask
  }
  if (networkWidth[value.network] > networkWidth[ceiling.network]) {
    clamp('network', `"${value.network}" is wider than "${ceiling.network}"`)
    out.network = ceiling.network
  }
  for (const flag of ['unsafeFallback', 'allowUnsafeLocal'] as const) {
    if (value[flag] && !ceiling[flag]) {
      clamp(flag, `${flag} is not allowed`)
      out[flag] = false
    }
  }
  for (const key of Object.keys(value.limits) as (keyof EffectiveAgentProfile['limits'])[]) {
    if (value.limits[key] > ceiling.limits[key]) {
      clamp(`limits.${key}`, `${value.limits[key]} is above ${ceiling.limits[key]}`)
      out.limits[key] = ceiling.limits[key]
    }
  }
  if (classificationRank(value.classificationCeiling) > classificationRank(ceiling.classificationCeiling)) {
    clamp('classificationCeiling', `${value.classificationCeiling} is above ${ceiling.classificationCeiling}`)
    out.classificationCeiling = ceiling.classificationCeiling
  }
  out.runtimes = listWithin('runtimes', value.runtimes, ceiling.runtimes, (entry, allowed) => entry === allowed, clamp)
  out.allowlist = listWithin('allowlist', value.allowlist, ceiling.allowlist, (entry, allowed) => entry === allowed || entry.startsWith(`${allowed} `), clamp)
  out.denylist = union(ceiling.denylist, value.denylist)
  out.protectedPaths = union(ceiling.protectedPaths, value.protectedPaths)
  out.labels = joinLabels(ceiling.labels, value.labels)
  out.mcpServers = value.mcpServers.map((server, index) => {
    if (!own.mcpServers) return server
    let kept = server
    if (kept.unsafe && !ceiling.allowUnsafeLocal) {
      clamp(`mcpServers.${index}.unsafe`, `server ${server.name} may not run outside a sandbox without allowUnsafeLocal`)
      kept = { ...kept, unsafe: false }
    }
    // A sandboxed server's network is a network of the agent's: no wider than the role allows.
    if (kept.network !== undefined && networkWidth[kept.network] > networkWidth[ceiling.network]) {
      clamp(`mcpServers.${index}.network`, `server ${server.name} may not have network "${kept.network}" under a role whose network is "${ceiling.network}"`)
      kept = { ...kept, network: ceiling.network }
    }
    return kept
  })
  return out
}

/** Keeps the entries of `values` the ceiling holds, naming each one dropped. */
function subset<T extends string>(path: string, values: T[], allowed: T[], clamp: (path: string, message: string) => void): T[] {
  return values.filter((entry, index) => {
    if (allowed.includes(entry)) return true
    clamp(`${path}.${index}`, `"${entry}" is not among ${allowed.length ? allowed.join(', ') : 'nothing'}`)
    return false
  })
}

/** A list where empty means "any": within a non-empty ceiling it keeps the entries covered, else the ceiling's. */
function listWithin(
  path: string,
  values: string[],
  allowed: string[],
  covers: (entry: string, allowed: string) => boolean,
  clamp: (path: string, message: string) => void
): string[] {
  if (allowed.length === 0) return values
  if (values.length === 0) {
    clamp(path, `an empty list (any) is wider than ${allowed.join(', ')}`)
    return allowed
  }
  const kept = values.filter((entry, index) => {
    if (allowed.some((a) => covers(entry, a))) return true
    clamp(`${path}.${index}`, `"${entry}" is not within ${allowed.join(', ')}`)
    return false
  })
  return kept.length > 0 ? kept : allowed
}

function union(first: readonly string[], second: readonly string[]): string[] {
  return [...new Set([...first, ...second])]
}

/** A combination no profile may hold: `unsafeFallback` only means something when isolation is not required. */
function finish(profile: EffectiveAgentProfile): EffectiveAgentProfile {
  return profile.isolation === 'required' && profile.unsafeFallback ? { ...profile, unsafeFallback: false } : profile
}
