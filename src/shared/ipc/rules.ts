import { z } from 'zod'
import { ruleChangedEventSchema, ruleMatcherSchema, ruleViewSchema } from '../approvals'
import type { NamespaceSpec } from './contract'

const idInput = z.object({ id: z.string().min(1).max(128) }).strict()

/**
 * The `rules` namespace (SPEC §7): remembered grants. `list` shows active rules (`all`: revoked
 * and expired ones too); `update` edits a rule's matcher and/or its time to live (null: none);
 * `revoke` ends one for good.
 */
export const rulesContract = {
  calls: {
    list: { input: z.object({ all: z.boolean().optional() }).strict(), output: z.array(ruleViewSchema) },
    update: {
      input: z
        .object({
          id: z.string().min(1).max(128),
          matcher: ruleMatcherSchema.optional(),
          ttlSeconds: z
            .number()
            .int()
            .min(1)
            .max(365 * 24 * 3600)
            .nullable()
            .optional()
        })
        .strict()
        .refine((input) => input.matcher !== undefined || input.ttlSeconds !== undefined, {
          message: 'give a matcher, a ttlSeconds, or both',
          path: ['matcher']
        }),
      output: ruleViewSchema
    },
    revoke: { input: idInput, output: ruleViewSchema }
  },
  events: {
    /** Rules changed (made, edited, revoked, matched, or another process changed them): refresh. */
    changed: { payload: ruleChangedEventSchema }
  }
} satisfies NamespaceSpec
