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
 * The final reuse key of a requirement on one provider, as a sha256 hex digest: (scope, owner,
 * the requirement's reuse key — or, without one, what it asks for: kind, resource key, config for
 * this candidate, policy, capabilities — and the provider). Only the digest is ever shown; the
 * material may hold secrets. Scope and owner are always part of it: one owner's resource is never
 * handed to another. The policy's `timeoutSeconds` and `maxOutputBytes` are ceilings and part of
 * the identity, so reuse never runs a call past the ceilings its own policy states; a call's own
 * deadline and output cap travel with the run (`CommandRunInput`), never with the requirement, so
 * they do not make a new sandbox or container.
 */
export function finalReuseKey(requirement: ResourceRequirement, providerId: string, candidateConfig: Record<string, unknown> | undefined): string {
  const reuse =
    requirement.reuseKey ??
    canonicalJson({
      kind: requirement.kind,
      resourceKey: requirement.resourceKey,
      config: candidateConfig ?? {},
      policy: requirement.policy ?? {},
      requiredCapabilities: requirement.requiredCapabilities ?? {},
      workspaceAccess: requirement.workspaceAccess ?? null
    })
  return createHash('sha256')
    .update(canonicalJson({ scope: requirement.scope, ownerId: requirement.ownerId ?? null, reuse, providerId }))
    .digest('hex')
}
