import { z } from 'zod'
import { agentIdSchema } from '../agents'
import type { NamespaceSpec } from './contract'

/** A session of the agent began or ended: its transport, the MCP client it named, why it ended. */
const sessionEntry = z.object({
  kind: z.literal('session'),
  at: z.string(),
  sessionId: z.string(),
  change: z.enum(['connected', 'disconnected']),
  transport: z.string(),
  client: z.string().nullable(),
  reason: z.string().nullable()
})

/**
 * One call: what it was (the command, the path), how it ended, what the policy decided (rule,
 * risk flags), the approval it waited for and who answered (the operator, a remembered rule), and
 * how many workspace entries it changed (its diffs come from `checkpoints.detail`).
 */
const callEntry = z.object({
  kind: z.literal('call'),
  at: z.string(),
  callId: z.string(),
  sessionId: z.string().nullable(),
  tool: z.string(),
  what: z.string(),
  status: z.string(),
  durationMs: z.number().nullable(),
  waitMs: z.number().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  rule: z.string().nullable(),
  riskFlags: z.array(z.string()),
  approval: z.object({ status: z.string(), reason: z.string(), scope: z.string().optional(), ruleId: z.string().optional() }).nullable(),
  changed: z.number().int().nullable()
})

/** Workspace changes that were not an agent's call: found between calls, or the operator's revert or restore. */
const changeEntry = z.object({
  kind: z.literal('changes'),
  at: z.string(),
  checkpointId: z.string(),
  cause: z.enum(['outside', 'revert', 'restore']),
  callId: z.string().nullable(),
  files: z.number().int(),
  note: z.string().nullable()
})

/** One moment of an agent's story. */
export const timelineEntrySchema = z.discriminatedUnion('kind', [sessionEntry, callEntry, changeEntry])

/** One moment of an agent's story. */
export type TimelineEntry = z.infer<typeof timelineEntrySchema>

/** The most entries one `timeline.list` returns. */
export const timelinePageLimit = 200

/**
 * The `timeline` namespace (issue 27): one agent's story in one place, newest first — sessions
 * (connect, disconnect, client), calls with their decisions and approvals, and workspace changes
 * (each call's diffs through `checkpoints.detail`; changes between calls and the operator's undo
 * as their own entries). Paged by time: `before` is the `at` of the last entry seen.
 */
export const timelineContract = {
  calls: {
    list: {
      input: z
        .object({
          agentId: agentIdSchema,
          before: z.iso.datetime({ offset: true }).optional(),
          limit: z.number().int().min(1).max(timelinePageLimit).optional()
        })
        .strict(),
      output: z.object({ entries: z.array(timelineEntrySchema), more: z.boolean() })
    }
  },
  events: {}
} satisfies NamespaceSpec
