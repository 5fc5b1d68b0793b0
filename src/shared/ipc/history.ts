import { z } from 'zod'
import type { NamespaceSpec } from './contract'

/**
 * Every status a history row can have: an action's end status, plus `running`, `waiting_approval`
 * (running, but waiting for the operator's decision) and `interrupted` (SPEC §10).
 */
export const historyStatuses = [
  'running',
  'waiting_approval',
  'success',
  'error',
  'blocked',
  'approval_required',
  'timed_out',
  'cancelled',
  'interrupted'
] as const

/** A history row's status. */
export const historyStatusSchema = z.enum(historyStatuses)

/** A history row's status. */
export type HistoryStatus = z.infer<typeof historyStatusSchema>

/** The most rows one page of `history.list` returns over IPC (the CLI allows more). */
export const historyPageLimit = 500

const idText = z.string().min(1).max(200)

/** One call as the History table lists it: who, what, how it ended, and its recorded input summary. */
export const historyRowSchema = z.object({
  seq: z.number().int(),
  id: z.string(),
  agentId: z.string().nullable(),
  sessionId: z.string().nullable(),
  tool: z.string(),
  status: historyStatusSchema,
  providerId: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  /** From its start to its end, the wait for an approval included. */
  durationMs: z.number().nullable(),
  /** How long it waited for the operator's approval (recorded with its end); null when it did not ask. */
  waitMs: z.number().nullable(),
  /** While it waits for the operator's approval: since when. */
  waitingSince: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** The input with secrets redacted and long strings shortened. */
  inputSummary: z.unknown(),
  /** The approval the call waited for: the queue item, or the remembered rule that answered (`ruleId`), and how far it reached. */
  approval: z
    .object({
      status: z.string(),
      reason: z.string(),
      approvalId: z.string().optional(),
      ruleId: z.string().optional(),
      scope: z.enum(['once', 'session', 'rule']).optional(),
      waitedMs: z.number().optional()
    })
    .nullable()
})

/** A history row as listed. */
export type HistoryRow = z.infer<typeof historyRowSchema>

/**
 * One output stream of a call: inline text, or the log file under `<home>/logs` it went to (over
 * 64 KiB) with its sha256. `text` is null and `problem` says why when a log file is missing or changed.
 */
export const historyOutputSchema = z.object({
  text: z.string().nullable(),
  truncated: z.boolean(),
  logFile: z.string().nullable(),
  sha256: z.string().nullable(),
  problem: z.string().optional()
})

/** One output stream of a call, as the detail drawer shows it. */
export type HistoryOutput = z.infer<typeof historyOutputSchema>

/** Everything recorded of one call: the row plus policy, approval, provider facts, output, artifacts, lineage and its chain link. */
export const historyDetailSchema = historyRowSchema.extend({
  policy: z
    .object({
      decision: z.string(),
      rule: z.string().optional(),
      reason: z.string().optional(),
      riskFlags: z.array(z.string()).optional(),
      /** The simple commands a command line would run, as the policy parsed them. */
      commands: z.array(z.array(z.string())).optional(),
      /** For a file write: the command lines it planted where they run later, and what the rules would do with each typed. */
      planted: z
        .array(z.object({ where: z.string(), line: z.string(), verdict: z.string(), rule: z.string().optional(), riskFlags: z.array(z.string()) }))
        .optional(),
      /** The session's taint when the call was decided, and after it ran (SPEC §6.3). */
      taint: z.string().optional(),
      taintAfter: z.string().optional(),
      /** The classification of what the call read and of where it sent data. */
      classification: z.object({ reads: z.string().optional(), sink: z.string().optional() }).optional()
    })
    .nullable(),
  provider: z.record(z.string(), z.unknown()).nullable(),
  stdout: historyOutputSchema,
  stderr: historyOutputSchema,
  artifacts: z.array(z.object({ name: z.string(), path: z.string(), bytes: z.number(), sha256: z.string(), mediaType: z.string().optional() })),
  /** Endpoints the call touched; through the egress proxy with the decision, address, rule and bytes each way. */
  lineage: z.array(
    z.object({
      kind: z.string(),
      endpoint: z.string(),
      decision: z.enum(['allowed', 'denied']).optional(),
      address: z.string().optional(),
      rule: z.string().optional(),
      reason: z.string().optional(),
      bytesUp: z.number().optional(),
      bytesDown: z.number().optional()
    })
  ),
  /** The result's data without output streams, redacted and shortened. */
  result: z.unknown(),
  /** Where the row sits in the hash chain; null while it is still running. */
  chain: z.object({ chainSeq: z.number().int(), prevHash: z.string(), hash: z.string() }).nullable()
})

/** Everything recorded of one call. */
export type HistoryDetail = z.infer<typeof historyDetailSchema>

/** Filters and paging of the History view; `cursor` is the `nextCursor` of the page before. */
export const historyListInputSchema = z
  .object({
    agentId: idText.optional(),
    tool: idText.optional(),
    status: historyStatusSchema.optional(),
    providerId: idText.optional(),
    since: z.iso.datetime({ offset: true }).optional(),
    until: z.iso.datetime({ offset: true }).optional(),
    /** Words searched in the tool name, the input summary, the error message and the output (see `outputSearchText`). */
    text: z.string().min(1).max(200).optional(),
    cursor: z.number().int().positive().optional(),
    limit: z.number().int().min(1).max(historyPageLimit).optional()
  })
  .strict()

/** Filters and paging of the History view. */
export type HistoryListInput = z.infer<typeof historyListInputSchema>

/** One page of history, newest first; `nextCursor` is absent on the last page. */
export const historyPageSchema = z.object({ rows: z.array(historyRowSchema), nextCursor: z.number().int().optional() })

/** One page of history. */
export type HistoryPage = z.infer<typeof historyPageSchema>

/** What `audit verify` found: how many chained rows check out, and else the first broken one and why. */
export const historyVerificationSchema = z.object({
  ok: z.boolean(),
  rows: z.number().int(),
  /** The hash of the newest chained row when the chain is intact: record it elsewhere to anchor the chain. */
  head: z.string().optional(),
  brokenAt: z.object({ seq: z.number().int(), id: z.string().nullable() }).optional(),
  reason: z.string().optional()
})

/** What a verification of the history chain found. */
export type HistoryVerification = z.infer<typeof historyVerificationSchema>

/** Filters of `history.count` and `history.usage`: the list's filters without paging. */
export const historyFilterInputSchema = historyListInputSchema.omit({ cursor: true, limit: true })

/** How many calls match a set of filters (the History view's count line). */
export const historyCountSchema = z.object({ count: z.number().int().nonnegative() })

/** Usage of one agent (or all): calls per hour by status, and duration percentiles of finished calls. */
export const historyUsageInputSchema = z
  .object({
    agentId: idText.optional(),
    /** Start of the window; the default is 24 hours ago. At most 31 days back. */
    since: z.iso.datetime({ offset: true }).optional()
  })
  .strict()

/** One hour of usage: its start (ISO, on the hour, UTC) and the calls that started in it, by status. */
export const usageBucketSchema = z.object({ hour: z.string(), counts: z.partialRecord(historyStatusSchema, z.number().int()) })

/** What `history.usage` returns: hourly buckets (every hour of the window, zeros included) and duration percentiles in ms. */
export const historyUsageSchema = z.object({
  since: z.string(),
  buckets: z.array(usageBucketSchema),
  durations: z.object({ count: z.number().int(), p50: z.number().nullable(), p90: z.number().nullable(), p99: z.number().nullable() })
})

/** Usage of one agent, as the Agents view charts it. */
export type HistoryUsage = z.infer<typeof historyUsageSchema>

/** One line a running call printed: its number in the call (from 1), its stream, its text (redacted; escape sequences kept for the ANSI view). */
export const liveLineSchema = z.object({ n: z.number().int().positive(), stream: z.enum(['stdout', 'stderr']), text: z.string() })

/** Lines of a running call: the newest kept, and how many before them (after the ones asked from) are not shown. */
export const liveLinesSchema = z.object({ id: z.string(), lines: z.array(liveLineSchema), skipped: z.number().int().nonnegative() })

/** Lines a running call printed. */
export type LiveLines = z.infer<typeof liveLinesSchema>

/**
 * A call as it runs: whether it is still in flight, its latest output lines after `after`, and what
 * is decided so far (the policy's decision, the approval once answered); both are recorded with its end.
 */
export const historyLiveSchema = liveLinesSchema.extend({
  running: z.boolean(),
  policy: historyDetailSchema.shape.policy.optional(),
  approval: historyRowSchema.shape.approval.optional()
})

/** A call as it runs. */
export type HistoryLive = z.infer<typeof historyLiveSchema>

/** The `history` namespace: the execution history (SPEC §10, §11 History view) and its hash-chain audit. */
export const historyContract = {
  calls: {
    list: { input: historyListInputSchema, output: historyPageSchema },
    detail: { input: z.object({ id: idText }).strict(), output: historyDetailSchema },
    verify: { input: z.object({}).strict(), output: historyVerificationSchema },
    count: { input: historyFilterInputSchema, output: historyCountSchema },
    usage: { input: historyUsageInputSchema, output: historyUsageSchema },
    /** A running call's output so far (its newest lines after line `after`) and what is decided about it. */
    live: { input: z.object({ id: idText, after: z.number().int().nonnegative().optional() }).strict(), output: historyLiveSchema },
    /** The operator stops a running call: it ends `cancelled`, as the agent's own cancellation would, and its error says the operator did it. */
    cancel: { input: z.object({ id: idText }).strict(), output: z.object({ cancelled: z.boolean() }) }
  },
  events: {
    /** A call began or finished (or was interrupted): refresh that row. */
    changed: { payload: z.object({ id: z.string(), status: historyStatusSchema }) },
    /** A running call printed new lines (at most four times a second per call; a flood is cut to its newest lines and counted in `skipped`). */
    output: { payload: liveLinesSchema }
  }
} satisfies NamespaceSpec
