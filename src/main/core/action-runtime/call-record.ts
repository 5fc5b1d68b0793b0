import type { ApprovalDecision } from '../policy-approval'
import type { PreToolCallDecision } from './action-hooks'
import type { ActionCallEnd } from './action-history'
import type { ActionResult, LineageEndpoint } from './action-spec'
import { redactText, redactValue } from './redaction'

/** The widest a recorded input or result summary's strings get. */
export const summaryStringBytes = 2048

/** An approval as `meta.approval` and history keep it: the outcome, and the queue item or remembered rule behind it. */
export type ApprovalOutcome = Pick<ApprovalDecision, 'status' | 'reason' | 'approvalId' | 'ruleId' | 'scope'> & { waitedMs?: number }

/** What a call gathers on its way for its history row: what it reached, the policy's decision, its approval. */
export type Trace = { lineage: LineageEndpoint[]; policy?: PreToolCallDecision; approval?: ApprovalOutcome }

/** The end of a call as history keeps it: the result's facts with every string the agent's secrets could be in redacted, summaries bounded. */
export function callEnd(callId: string, result: ActionResult, trace: Trace, secrets: readonly string[]): ActionCallEnd {
  const data = (result.data ?? {}) as Record<string, unknown>
  const text = (value: unknown) => (typeof value === 'string' ? redactText(value, secrets) : undefined)
  const policy = typeof result.meta.policy === 'object' && result.meta.policy !== null ? result.meta.policy : trace.policy
  const stdout = text(data.stdout)
  const stderr = text(data.stderr)
  const { stdout: _o, stderr: _e, content: _c, ...rest } = typeof result.data === 'object' && result.data !== null ? data : { value: result.data }
  const end: ActionCallEnd = {
    callId,
    status: result.status,
    finishedAt: new Date().toISOString(),
    durationMs: Number(result.meta.durationMs ?? 0),
    // A response hook may have added to the decision (the taint after the call): the result's copy is the latest.
    ...(policy ? { policy: redactValue(policy, { secrets }) as ActionCallEnd['policy'] } : {}),
    ...(trace.approval ? { approval: redactValue(trace.approval, { secrets }) as ActionCallEnd['approval'] } : {}),
    ...(result.meta.provider
      ? { provider: redactValue(result.meta.provider, { secrets, maxStringBytes: summaryStringBytes }) as Record<string, unknown> }
      : {}),
    ...(typeof data.exitCode === 'number' ? { exitCode: data.exitCode } : {}),
    ...(stdout !== undefined ? { stdout, stdoutTruncated: data.stdoutTruncated === true } : {}),
    ...(stderr !== undefined ? { stderr, stderrTruncated: data.stderrTruncated === true } : {}),
    // Artifact names come from what a program wrote; endpoints from what a page or server named.
    artifacts: redactValue(result.artifacts, { secrets }) as ActionCallEnd['artifacts'],
    lineage: redactValue(trace.lineage, { secrets }) as ActionCallEnd['lineage'],
    ...(result.error ? { error: { code: result.error.code, message: redactText(result.error.message, secrets) } } : {}),
    resultSummary: redactValue(rest, { secrets, maxStringBytes: summaryStringBytes })
  }
  return end
}
