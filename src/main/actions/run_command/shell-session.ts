import { fullIsolation, type ActionAgent, type ResourceRequirementInput } from '../../core'
import { dockerShellLanguage, executionPolicy, orderedCandidates } from './execution-profile'

/**
 * The `bash` requirement of an agent's session shell (SPEC §3.3–3.4, §5.3): the profile's
 * provider order, its isolation (`required`: every axis, never a fallback; `preferred`: a full
 * match first, a fallback recorded in the handle), the workspace as the only writable root, the
 * profile's network, time and output ceilings and limits. Held for the session, so it stays warm.
 * `hiddenPaths` (the policy's, for this call): labelled entries the shell must not see. They are
 * part of the requirement, so a call that may see more (it names a labelled file) runs in a shell
 * of its own and the session's usual one never sees what only that call was let read.
 */
export function shellRequirement(agent: ActionAgent, hiddenPaths: readonly string[] = []): ResourceRequirementInput {
  const { profile } = agent
  return {
    kind: 'bash',
    providerCandidates: orderedCandidates(profile, { kind: 'bash', dockerConfig: { language: dockerShellLanguage(profile) } }),
    ...(profile.isolation === 'required' ? { requiredCapabilities: { isolation: fullIsolation } } : {}),
    ...(profile.isolation === 'preferred' ? { preferredCapabilities: { isolation: fullIsolation } } : {}),
    policy: { ...executionPolicy(profile), workspaceRoots: [agent.workspace], ...(hiddenPaths.length > 0 ? { hiddenPaths: [...hiddenPaths] } : {}) }
  }
}
