import { AirlockError } from '@shared/errors'
import type { RunStop } from './action-hooks'
import type { ActionOutcome, ActionResult } from './action-spec'

/**
 * How a call's outcome becomes its result, and how an abort or a thrown error becomes an outcome:
 * the dispatcher's own reasons (agent disabled or removed, a running hook's stop, the operator's
 * cancel) each map to their status and message; any other abort is the agent's cancellation.
 */

/** Why the dispatcher itself aborted a call; anything else aborting it is a cancellation. */
export type AbortReason = { airlock: 'agent_disabled' | 'agent_removed' | 'operator_cancelled' } | { airlock: 'stopped'; stop: RunStop }

/** True when the dispatcher itself aborted (one of `AbortReason`), not the agent. */
export function isAgentAbort(reason: unknown): reason is AbortReason {
  return typeof reason === 'object' && reason !== null && typeof (reason as AbortReason).airlock === 'string'
}

/** An outcome for a thrown error or an abort: the error's code kept, approvals and aborts mapped to their status. */
export function failure(error: unknown, signal: AbortSignal): ActionOutcome {
  if (signal.aborted && isAgentAbort(signal.reason)) {
    if (signal.reason.airlock === 'stopped') return { status: 'error', error: { ...signal.reason.stop } }
    if (signal.reason.airlock === 'operator_cancelled')
      return { status: 'cancelled', error: { code: 'cancelled', message: 'The operator cancelled this call from the console.' } }
    const why = signal.reason.airlock
    return {
      status: 'blocked',
      error: { code: `policy.${why}`, message: `The call was stopped: its agent was ${why === 'agent_disabled' ? 'disabled' : 'removed'}.` }
    }
  }
  if (signal.aborted) return { status: 'cancelled', error: { code: 'cancelled', message: 'The call was cancelled.' } }
  const code = error instanceof AirlockError ? error.code : 'internal_error'
  const message = error instanceof Error ? error.message : String(error)
  if (code === 'execution_resource.approval_required') return { status: 'approval_required', error: { code, message } }
  if (code === 'execution_resource.approval_denied') return { status: 'blocked', error: { code, message } }
  return { status: 'error', error: { code, message } }
}

/** The result of a call from its outcome: status (default success), meta with the call id and duration. */
export function finalResult(outcome: ActionOutcome, callId: string, elapsedMs: number): ActionResult {
  const status = outcome.status ?? 'success'
  return {
    ok: status === 'success',
    status,
    ...(outcome.data !== undefined ? { data: outcome.data } : {}),
    artifacts: outcome.artifacts ?? [],
    meta: { callId, durationMs: Math.round(elapsedMs), ...outcome.meta },
    diagnostics: outcome.diagnostics ?? [],
    ...(outcome.error ? { error: outcome.error } : {})
  }
}
