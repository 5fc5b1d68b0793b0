import { randomUUID } from 'node:crypto'
import { resourceRequirementSchema } from '@shared/resources'
import { ExecutionResourceError } from './errors'
import type { ResourceRequirement, ResourceRequirementInput } from './types'

/** How many declared requirements without a handle the manager keeps for `inspect` (oldest dropped first). */
export const retainedRequirements = 256

/** Validates a requirement and fills in its defaults (id, scope, resource key); issues name the field. */
export function normaliseRequirement(input: ResourceRequirementInput): ResourceRequirement {
  const parsed = resourceRequirementSchema.safeParse(input)
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'requirement'}: ${issue.message}`)
    throw new ExecutionResourceError('invalid_requirement', `Invalid resource requirement: ${issues.join('; ')}.`, { issues })
  }
  return {
    ...parsed.data,
    requirementId: parsed.data.requirementId ?? `${parsed.data.kind}:${randomUUID()}`,
    scope: parsed.data.scope ?? 'action_call',
    resourceKey: parsed.data.resourceKey ?? parsed.data.kind
  }
}

/**
 * The requirements a manager was asked for, kept bounded: those behind a live or quarantined
 * handle stay, and of the rest only the most recent `retainedRequirements` (enough to inspect
 * recent failures). A requirement's config may hold secrets; a long-running console must not
 * keep every one it saw.
 */
export class DeclaredRequirements {
  private readonly byId = new Map<string, ResourceRequirement>()

  /** Records one; `held` says which requirement ids still back a handle (never dropped). */
  add(requirement: ResourceRequirement, held: () => Set<string>): void {
    this.byId.set(requirement.requirementId, requirement)
    if (this.byId.size <= retainedRequirements) return
    const keep = held()
    for (const id of this.byId.keys()) {
      if (this.byId.size <= retainedRequirements) return
      if (!keep.has(id)) this.byId.delete(id)
    }
  }

  /** A recorded requirement by id. */
  get(id: string): ResourceRequirement | undefined {
    return this.byId.get(id)
  }
}
