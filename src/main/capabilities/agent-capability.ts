import type { ActionResolver, AnyActionSpec, ResourcePolicy, ResourceRequirementInput } from '../core'
import type { EffectiveAgentProfile } from '@shared/agents'
import { codeLanguageSchema, type CodeLanguage } from '@shared/code-execution'

/**
 * What one capability gives an agent (SPEC §2, capabilities layer): the tools it enables, the
 * action specs behind them, the resources it will need (declared for the operator to see; the
 * actions ensure them per call or session), and the policy those resources run under.
 * Never a handle or a provider object.
 */
export type AgentCapability = {
  /** Tool names enabled (`<server>__*` enables every tool of an upstream MCP server). */
  tools: string[]
  actions: AnyActionSpec[]
  resolvers: ActionResolver[]
  requirements: ResourceRequirementInput[]
  policy: ResourcePolicy
  /** The code runtimes this capability allows `run_code` (and skills) to use. */
  runtimes: CodeLanguage[]
}

/** An empty capability: the unit of `combineCapabilities`. */
export function noCapability(): AgentCapability {
  return { tools: [], actions: [], resolvers: [], requirements: [], policy: {}, runtimes: [] }
}

/** Merges capabilities: tools, specs and requirements unioned; the first policy value of a key wins. */
export function combineCapabilities(...parts: AgentCapability[]): AgentCapability {
  const out = noCapability()
  for (const part of parts) {
    for (const tool of part.tools) if (!out.tools.includes(tool)) out.tools.push(tool)
    for (const action of part.actions) if (!out.actions.includes(action)) out.actions.push(action)
    for (const resolver of part.resolvers) if (!out.resolvers.includes(resolver)) out.resolvers.push(resolver)
    out.requirements.push(...part.requirements)
    out.policy = { ...part.policy, ...out.policy }
    for (const runtime of part.runtimes) if (!out.runtimes.includes(runtime)) out.runtimes.push(runtime)
  }
  return out
}

/** The languages a profile's `runtimes` list allows of `wanted` (an empty list allows all). */
export function allowedRuntimes(profile: EffectiveAgentProfile, wanted: readonly CodeLanguage[]): CodeLanguage[] {
  return wanted.filter((language) => profile.runtimes.length === 0 || profile.runtimes.includes(language))
}

/** Every language the code-execution adapters know. */
export const everyLanguage: readonly CodeLanguage[] = codeLanguageSchema.options
