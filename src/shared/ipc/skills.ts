import { z } from 'zod'
import { agentIdSchema } from '../agents'
import { skillChangedEventSchema, skillNameSchema, skillRevisionViewSchema, skillViewSchema } from '../skills'
import type { NamespaceSpec } from './contract'

const revisionInput = { agentId: agentIdSchema, name: skillNameSchema, revision: z.number().int().min(1) }

/**
 * The `skills` namespace (SPEC §6.4): an agent's skills with every revision, and the operator's
 * decision on a revision that waits. Only `pending_approval` revisions can be decided, once.
 */
export const skillsContract = {
  calls: {
    list: { input: z.object({ agentId: agentIdSchema }).strict(), output: z.array(skillViewSchema) },
    approve: { input: z.object(revisionInput).strict(), output: skillRevisionViewSchema },
    reject: { input: z.object({ ...revisionInput, reason: z.string().trim().min(1).max(2000) }).strict(), output: skillRevisionViewSchema }
  },
  events: {
    /** A revision was recorded, approved or rejected: refresh that agent's skills. */
    changed: { payload: skillChangedEventSchema }
  }
} satisfies NamespaceSpec
