import { z } from 'zod'
import { agentIdSchema, classificationSchema } from './agents'

/**
 * The operator's approval queue and remembered grants (SPEC §7). Shared by the store, the console
 * services, the CLI and the renderer: one schema per shape, validated at every boundary.
 */

/** Where an item is: waiting, decided, or expired (nobody decided in time, or nobody waits any more). */
export const approvalStatusSchema = z.enum(['pending', 'approved', 'denied', 'expired'])
export type ApprovalStatus = z.infer<typeof approvalStatusSchema>

/** What asked: an action call's policy, a resource requirement, a write-down, a skill revision, an egress connection. */
export const approvalKindSchema = z.enum(['action', 'resource', 'write_down', 'skill', 'network'])
export type ApprovalKind = z.infer<typeof approvalKindSchema>

/** How far an approval reaches: this request only, identical requests for the rest of the session, or a remembered rule. */
export const approvalScopeSchema = z.enum(['once', 'session', 'rule'])
export type ApprovalScope = z.infer<typeof approvalScopeSchema>

/** Who a remembered rule applies to. */
export const ruleScopeSchema = z.enum(['session', 'agent', 'global'])
export type RuleScope = z.infer<typeof ruleScopeSchema>

const word = z.string().min(1).max(4096)

/**
 * What a rule matches (SPEC §7), always on parsed, validated facts, never on raw text:
 * - `command`: the ordered simple commands of the parsed line, one entry each: as many commands as
 *   entries, and the command at index i matches entry i (order is part of what was approved:
 *   `ls; export PATH=.` is not `export PATH=.; ls`). A command matches an entry when its argv
 *   starts with `prefix` and the rest of its words (joined by one space) match `args`, a glob (`*`
 *   any run of characters, `?` one); no `args` means nothing may follow the prefix. A line the
 *   parser could not see whole is never covered.
 * - `path`: a file tool (`tools`) writing only inside `subtree` (workspace-relative, `.` = all).
 * - `domain`: `host` (exact, or `*.suffix`) and optionally one `port`.
 * - `tool`: a tool by name (an upstream MCP tool is `<server>__<tool>`). With `args`, a call is
 *   covered only when its input has exactly those top-level fields with equal JSON values: a field
 *   the approved call did not have is not free (`{}`: only a call without input fields). Without
 *   `args`, every call of the tool is covered: only an operator's edit makes such a rule (a
 *   proposed rule always has `args`), and code tools (`run_code`, `run_skill`) always need `args`.
 */
export const ruleMatcherSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('command'),
      commands: z
        .array(z.object({ prefix: z.array(word).min(1).max(64), args: z.string().min(1).max(4096).optional() }).strict())
        .min(1)
        .max(32)
    })
    .strict(),
  z
    .object({
      kind: z.literal('path'),
      subtree: z
        .string()
        .min(1)
        .max(4096)
        .refine((p) => !p.startsWith('/') && !p.split('/').includes('..') && !p.includes('\0'), 'must be a workspace-relative path without ..'),
      tools: z
        .array(z.enum(['write_file', 'edit_file']))
        .min(1)
        .max(2)
    })
    .strict(),
  z
    .object({
      kind: z.literal('domain'),
      host: z
        .string()
        .min(1)
        .max(253)
        .regex(/^(\*\.)?[a-z0-9.-]+$/, 'a lower-case host name, or *.suffix'),
      port: z.number().int().min(1).max(65535).optional()
    })
    .strict(),
  z
    .object({
      kind: z.literal('tool'),
      tool: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/),
      args: z.record(z.string().min(1).max(128), z.json()).optional()
    })
    .strict()
])
export type RuleMatcher = z.infer<typeof ruleMatcherSchema>

/** A remembered grant as every console and the CLI see it. */
export const ruleViewSchema = z.object({
  id: z.string(),
  scope: ruleScopeSchema,
  agentId: z.string().nullable(),
  sessionId: z.string().nullable(),
  matcher: ruleMatcherSchema,
  /** The risk flags the rule answers: a call with a flag outside this set still asks. */
  riskFlags: z.array(z.string()),
  decision: z.literal('allow'),
  /** One line for people: what the rule matches. */
  description: z.string(),
  matchCount: z.number().int().min(0),
  lastMatchedAt: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  /** The queue item it was made from. */
  approvalId: z.string().nullable()
})
export type RuleView = z.infer<typeof ruleViewSchema>

/** The operator's decision on an item, as recorded. */
export const approvalDecisionViewSchema = z.object({
  decision: z.enum(['approve', 'deny', 'expire']),
  scope: approvalScopeSchema.optional(),
  reason: z.string(),
  /** Where the decision came from: `console`, `cli`, `timeout`, `restart`. */
  by: z.string(),
  ruleId: z.string().optional(),
  decidedAt: z.string(),
  /** How many waiting calls received it (0: nobody waited any more). */
  delivered: z.number().int().min(0)
})
export type ApprovalDecisionView = z.infer<typeof approvalDecisionViewSchema>

/** A command line a file write plants where something runs it later (package.json scripts, hooks, CI steps), as the policy analysed it. */
export const plantedCommandSchema = z.object({
  where: z.string(),
  line: z.string(),
  commands: z.array(z.array(z.string())),
  riskFlags: z.array(z.string()),
  /** What the command rules would do with the line typed as a command, and the rule that said so. */
  verdict: z.enum(['run', 'ask', 'blocked']),
  rule: z.string().optional()
})
export type PlantedCommandView = z.infer<typeof plantedCommandSchema>

/** One queue item, as consoles show it. */
export const approvalViewSchema = z.object({
  id: z.string(),
  agentId: z.string().nullable(),
  sessionId: z.string().nullable(),
  tool: z.string(),
  status: approvalStatusSchema,
  summary: z.string(),
  riskFlags: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string(),
  kind: approvalKindSchema,
  /** Why it asks, and the policy rule that asked (`risk.package_install`, `classification.write_down`...). */
  reason: z.string(),
  policyRule: z.string().nullable(),
  /** The parsed commands of a command line (never re-parsed from text). */
  commands: z.array(z.array(z.string())),
  /** A file diff or other preview (unified diff for file tools), secrets redacted. */
  preview: z.string().nullable(),
  /** For a file write: the command lines it plants where they run later, with the policy's flags (none: an empty list). */
  planted: z.array(plantedCommandSchema).default([]),
  classification: z
    .object({ reads: classificationSchema.optional(), sink: classificationSchema.optional(), taint: classificationSchema.optional() })
    .nullable(),
  /** How many identical requests of the agent this item stands for (batching). */
  count: z.number().int().min(1),
  /** Calls waiting for it right now (in the running console). */
  waiting: z.number().int().min(0),
  /** The rule this item would become when approved as a rule (for the preview), or null when it cannot be one. */
  proposedRule: z.object({ matcher: ruleMatcherSchema, description: z.string(), riskFlags: z.array(z.string()) }).nullable(),
  decision: approvalDecisionViewSchema.nullable()
})
export type ApprovalView = z.infer<typeof approvalViewSchema>

/**
 * The risk flag of a queue item whose text holds hidden characters (bidi controls, zero-width
 * characters, ESC, CR: Trojan Source): what the operator reads is not all there is. The queue adds
 * it when the item is made; consoles show every such character escaped and marked.
 */
export const hiddenCharactersFlag = 'hidden_characters'

/** The text of a queue item that came from the agent's call, as consoles show it: what `hiddenCharactersFlag` is decided on. */
export function approvalTexts(
  item: Pick<ApprovalView, 'tool' | 'summary' | 'reason' | 'commands' | 'preview'> & { planted?: ApprovalView['planted'] }
): string[] {
  return [
    item.tool,
    item.summary,
    item.reason,
    ...item.commands.flat(),
    ...(item.preview === null ? [] : [item.preview]),
    ...(item.planted ?? []).map((entry) => entry.line)
  ]
}

/** What `airlock approvals list --json` prints per item: exactly these keys (SPEC §5.3). */
export const approvalListKeys = ['id', 'agentId', 'sessionId', 'tool', 'status', 'summary', 'riskFlags', 'createdAt', 'expiresAt'] as const

/** The operator's decision as consoles and the CLI send it. */
export const approvalDecisionInputSchema = z.discriminatedUnion('decision', [
  z
    .object({
      id: z.string().min(1).max(128),
      decision: z.literal('approve'),
      scope: approvalScopeSchema.default('once'),
      /** For `scope: rule`: who it applies to (default `agent`), how long (default: no expiry), and an edited matcher. */
      rule: z
        .object({
          scope: ruleScopeSchema.default('agent'),
          ttlSeconds: z
            .number()
            .int()
            .min(1)
            .max(365 * 24 * 3600)
            .optional(),
          matcher: ruleMatcherSchema.optional()
        })
        .strict()
        .optional()
    })
    .strict(),
  z
    .object({
      id: z.string().min(1).max(128),
      decision: z.literal('deny'),
      reason: z.string().trim().min(1).max(2000)
    })
    .strict()
])
export type ApprovalDecisionInput = z.input<typeof approvalDecisionInputSchema>

/** An open or ended agent session, as consoles see it. */
export const sessionViewSchema = z.object({
  id: z.string(),
  agentId: agentIdSchema,
  transport: z.string(),
  taint: classificationSchema,
  startedAt: z.string(),
  lastSeenAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  endReason: z.string().nullable(),
  open: z.boolean()
})
export type SessionView = z.infer<typeof sessionViewSchema>

/** Pushed when the queue changed (an item was asked, joined, decided or expired; `external`: another process changed it). */
export const approvalChangedEventSchema = z.object({
  approvalId: z.string().optional(),
  change: z.enum(['requested', 'joined', 'decided', 'expired', 'external'])
})
export type ApprovalChangedEvent = z.infer<typeof approvalChangedEventSchema>

/** Pushed when remembered rules changed (made, edited, revoked, matched; `external`: another process). */
export const ruleChangedEventSchema = z.object({
  ruleId: z.string().optional(),
  change: z.enum(['created', 'updated', 'revoked', 'matched', 'external'])
})
export type RuleChangedEvent = z.infer<typeof ruleChangedEventSchema>

/** Pushed when an agent session started or ended. */
export const sessionChangedEventSchema = z.object({
  sessionId: z.string(),
  agentId: z.string(),
  change: z.enum(['started', 'ended'])
})
export type SessionChangedEvent = z.infer<typeof sessionChangedEventSchema>
