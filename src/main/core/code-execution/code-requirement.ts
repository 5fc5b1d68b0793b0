import { codeIsolationSchema, type CodeIsolation, type CodeLanguage } from '@shared/code-execution'
import { isolationAxisNames } from '@shared/resources'
import { ExecutionResourceError } from '../errors'
import type { ResourceCandidate, ResourcePolicy, ResourceRequirementInput, ResourceScope } from '../types'
import type { GrantMode } from './task-workspace'

/** Every isolation axis demanded (what `required` and `preferred` ask for). */
export const fullIsolation = Object.fromEntries(isolationAxisNames.map((axis) => [axis, true])) as Record<(typeof isolationAxisNames)[number], true>

/** Where and how one piece of code should run. */
export type CodeExecutionTarget = {
  language: CodeLanguage
  isolation: CodeIsolation
  /** The ordered providers (the agent's override, else the `code_execution.providers` setting). */
  providers: readonly ResourceCandidate[]
  scope: ResourceScope
  ownerId: string
  actionCallId?: string
  mode: GrantMode
  policy: ResourcePolicy
  /** Per-provider config merged under each candidate's own (e.g. docker `profile`). */
  config?: Record<string, unknown>
}

/**
 * Turns the public isolation policy and the ordered providers into a `code_execution`
 * requirement (SPEC §3.4): `required` demands every axis and never falls back; `preferred` asks
 * for them first and records a fallback; `unsafeFallback` (only with preferred/none) adds
 * `trusted_local`, authorised, as the last resort. The language must be among the probe's.
 */
export function codeExecutionRequirement(target: CodeExecutionTarget): ResourceRequirementInput {
  const isolation = codeIsolationSchema.safeParse(target.isolation)
  if (!isolation.success) {
    throw new ExecutionResourceError('invalid_requirement', `Invalid isolation policy: ${isolation.error.issues.map((i) => i.message).join('; ')}.`, {})
  }
  const candidates = [...target.providers]
  if (isolation.data.unsafeFallback && !candidates.some((c) => (typeof c === 'string' ? c : c.providerId) === 'trusted_local')) {
    candidates.push({ providerId: 'trusted_local', config: { allowUnsafeLocal: true } })
  }
  return {
    kind: 'code_execution',
    scope: target.scope,
    ownerId: target.ownerId,
    actionCallId: target.actionCallId,
    providerCandidates: candidates,
    requiredCapabilities: { languages: [target.language], ...(isolation.data.isolation === 'required' ? { isolation: fullIsolation } : {}) },
    ...(isolation.data.isolation === 'preferred' ? { preferredCapabilities: { isolation: fullIsolation } } : {}),
    workspaceAccess: { mode: target.mode },
    policy: target.policy,
    ...(target.config ? { config: target.config } : {})
  }
}
