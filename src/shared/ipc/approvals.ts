import { z } from 'zod'
import { approvalChangedEventSchema, approvalDecisionInputSchema, approvalStatusSchema, approvalViewSchema } from '../approvals'
import type { NamespaceSpec } from './contract'

const idInput = z.object({ id: z.string().min(1).max(128) }).strict()

/**
 * The `approvals` namespace (SPEC §7, §12): the operator's queue across all agents. `list` shows
 * pending items unless a status (or `all`) is asked; `decide` approves once, for the session or as
 * a rule, or denies with a reason — once per item (`approval.already_decided` after).
 */
export const approvalsContract = {
  calls: {
    list: {
      input: z.object({ status: z.union([approvalStatusSchema, z.literal('all')]).optional(), limit: z.number().int().min(1).max(5000).optional() }).strict(),
      output: z.array(approvalViewSchema)
    },
    get: { input: idInput, output: approvalViewSchema },
    decide: { input: approvalDecisionInputSchema, output: approvalViewSchema },
    /** What redaction hid in a pending request, for the operator deciding it (audited; refused once it is decided). */
    reveal: { input: idInput, output: z.object({ input: z.unknown() }) }
  },
  events: {
    /** The queue changed (asked, joined, decided, expired, or another process changed it): refresh. */
    changed: { payload: approvalChangedEventSchema }
  }
} satisfies NamespaceSpec
