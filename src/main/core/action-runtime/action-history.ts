import type { PreToolCallDecision } from './action-hooks'
import type { ActionArtifact, ActionStatus, LineageEndpoint } from './action-spec'

/** The start of a call as history records it: already redacted. */
export type ActionCallStart = {
  callId: string
  agentId: string
  sessionId: string
  tool: string
  /** The input with secrets redacted and long strings shortened. */
  inputSummary: unknown
  startedAt: string
}

/** The end of a call as history records it: already redacted. */
export type ActionCallEnd = {
  callId: string
  status: ActionStatus
  finishedAt: string
  durationMs: number
  /** The policy decision (rule, risk flags, parsed commands, taint before and after), when a hook decided. */
  policy?: PreToolCallDecision
  /**
   * The approval this call waited for and the outcome: the queue item that carried it, or the
   * remembered rule that answered (`ruleId`), and how far the approval reached (`scope`).
   */
  approval?: { status: string; reason: string; approvalId?: string; ruleId?: string; scope?: string; waitedMs?: number }
  /** Which provider ran it and the isolation facts, including a recorded fallback. */
  provider?: Record<string, unknown>
  exitCode?: number
  stdout?: string
  stderr?: string
  stdoutTruncated?: boolean
  stderrTruncated?: boolean
  artifacts: ActionArtifact[]
  lineage: LineageEndpoint[]
  error?: { code: string; message: string }
  /** The result's data without output streams, redacted and shortened. */
  resultSummary?: unknown
}

/**
 * The port through which the dispatcher records every call (SPEC §10): a row exists as `running`
 * before anything runs, and gets its end once. The application's store implements it (hash chain,
 * large output to `logs/`); the core never sees the database. A port that throws on `begin`
 * stops the call (nothing runs unrecorded).
 */
export interface ActionHistory {
  begin(start: ActionCallStart): void
  finish(end: ActionCallEnd): void
  /** The call started waiting for the operator's approval at `since` (ISO), or stopped waiting (`null`). A live state only: the wait's length is recorded with the end. */
  waiting?(callId: string, since: string | null): void
}
