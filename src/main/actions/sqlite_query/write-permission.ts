import { redactText, redactValue, type ActionContext, type ActionOutcome } from '../../core'

/**
 * How `sqlite_query` treats a statement SQLite calls a write (see `createSqliteQueryAction`):
 * `ask` the operator (unless the agent's `ask` mode is `never`), `allow` without asking, or
 * `refuse` every write.
 */
export type SqliteWritePolicy = 'ask' | 'allow' | 'refuse'

/** The rule that decides writes, as recorded in `meta.policy`. */
const rule = 'sqlite.write'

/** The input fields the permission looks at. */
type WriteRequest = { database: string; sql: string; params?: unknown[] | Record<string, unknown> }

/** The most of the bound values a summary shows (the item's input holds them all, for rules and batching). */
const maxSummaryParams = 200

/**
 * Decides whether this call's write may run: `granted` (with what decided it, for the result's
 * `meta.write` and `meta.approval`) or the finished outcome (blocked, approval pending or denied). An approval is asked
 * through the core's approval registry (the console's queue in the application), with the
 * statement and its bound `params` shown to the operator and secrets redacted from both. The
 * request's `input` holds the params too, so a remembered rule and batching tell writes of
 * different values apart.
 */
export async function writePermission(
  context: ActionContext<WriteRequest>,
  policy: SqliteWritePolicy
): Promise<{ granted: Record<string, unknown> } | { outcome: ActionOutcome }> {
  const { agent, input, callId } = context
  if (policy === 'refuse') {
    const decision = { decision: 'deny', rule: 'sqlite.read_only', reason: 'sqlite_query is read-only here: writes are refused' }
    return {
      outcome: {
        status: 'blocked',
        meta: { policy: decision },
        error: { code: 'policy.blocked', message: `The statement writes to ${input.database}, and ${decision.reason}.` }
      }
    }
  }
  if (policy === 'allow' || agent.profile.ask === 'never') {
    const reason = policy === 'allow' ? 'the operator allows sqlite_query writes' : "the agent's ask mode is never"
    return { granted: { write: { decision: 'allow', rule, reason } } }
  }
  const decisionRecord = { decision: 'ask', rule, reason: 'the statement writes to the database', riskFlags: ['database_write'] }
  // The bound values are part of what runs: `UPDATE … SET role = ?` for bob is not the same write for mallory.
  const params = input.params === undefined ? undefined : redactValue(input.params, { secrets: agent.secrets ?? [] })
  const shownParams = params === undefined ? '' : ` with params ${shorten(JSON.stringify(params), maxSummaryParams)}`
  const approval = await context.manager.approval.resolve({
    requirementId: `sqlite-write:${callId}`,
    kind: 'sqlite',
    scope: 'action_call',
    ownerId: agent.agentId,
    actionCallId: callId,
    reason: decisionRecord.reason,
    summary: `${agent.agentId}: sqlite_query writes ${input.database}: ${redactText(shorten(input.sql, 400), agent.secrets)}${shownParams}`,
    tool: 'sqlite_query',
    agentId: agent.agentId,
    sessionId: agent.sessionId,
    rule,
    riskFlags: decisionRecord.riskFlags,
    timeoutSeconds: agent.profile.approvalTimeoutSeconds,
    approvalKind: 'action',
    input: { database: input.database, sql: redactText(input.sql, agent.secrets), ...(params === undefined ? {} : { params }) },
    signal: context.signal
  })
  const record = {
    status: approval.status,
    reason: approval.reason,
    ...(approval.approvalId ? { approvalId: approval.approvalId } : {}),
    ...(approval.ruleId ? { ruleId: approval.ruleId } : {})
  }
  if (approval.status === 'approved') return { granted: { write: decisionRecord, approval: record } }
  const pending = approval.status === 'pending'
  return {
    outcome: {
      status: pending ? 'approval_required' : 'blocked',
      meta: { policy: decisionRecord, approval: record },
      error: {
        code: pending ? 'approval.pending' : 'approval.denied',
        message: `The statement writes to ${input.database} and needs the operator's approval: ${approval.reason}.`
      }
    }
  }
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`
}
