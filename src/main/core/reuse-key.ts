import { createHash } from 'node:crypto'
import type { ResourceRequirement } from './types'

/** JSON with object keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item
  )
}

/**
 * Policy fields that bound one run, not the resource: a run passes its own timeout and output cap
 * (`CommandRunInput`), so a per-call timeout does not make a new sandbox or container.
 */
const perRunPolicyFields = ['timeoutSeconds', 'maxOutputBytes'] as const

/** The policy as resource identity: without the per-run bounds. */
function resourcePolicy(policy: ResourceRequirement['policy']): Record<string, unknown> {
  const identity: Record<string, unknown> = { ...policy }
  for (const field of perRunPolicyFields) delete identity[field]
  return identity
}

/**
 * The final reuse key of a requirement on one provider, as a sha256 hex digest: (scope, owner,
 * the requirement's reuse key — or, without one, what it asks for: kind, resource key, config for
 * this candidate, policy without its per-run bounds, capabilities — and the provider). Only the
 * digest is ever shown; the material may hold secrets. Scope and owner are always part of it: one
 * owner's resource is never handed to another.
 */
export function finalReuseKey(requirement: ResourceRequirement, providerId: string, candidateConfig: Record<string, unknown> | undefined): string {
  const reuse =
    requirement.reuseKey ??
    canonicalJson({
      kind: requirement.kind,
      resourceKey: requirement.resourceKey,
      config: candidateConfig ?? {},
      policy: resourcePolicy(requirement.policy),
      requiredCapabilities: requirement.requiredCapabilities ?? {},
      workspaceAccess: requirement.workspaceAccess ?? null
    })
  return createHash('sha256')
    .update(canonicalJson({ scope: requirement.scope, ownerId: requirement.ownerId ?? null, reuse, providerId }))
    .digest('hex')
}
