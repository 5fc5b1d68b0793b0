import type { ProgressToken, ServerNotification } from '@modelcontextprotocol/sdk/types.js'

/** What the approval queue tells about a call while it waits for the operator (its `ApprovalWaitEvent` fits). */
export type ApprovalWaitUpdate = {
  /** The queue item the call waits on. */
  approvalId: string
  state: 'waiting' | 'approved' | 'denied' | 'expired'
  /** When the item expires (ISO time); a waiting item is denied then. */
  expiresAt?: string
  /** What the operator is asked, secret-free (the item's summary). */
  summary?: string
  /** The decision's reason, once there is one. */
  reason?: string
}

/**
 * The hook the host gives the gateway so a waiting call can report progress: `watchCall` tells
 * the listener when the call with this id starts waiting on a queue item and when the item is
 * decided or expires; it returns a function that stops watching. (The approval queue implements it.)
 */
export type ApprovalWaits = {
  watchCall(callId: string, listener: (update: ApprovalWaitUpdate) => void): () => void
}

/** How often a call in flight repeats its progress (under 5 s: a client that resets its timeout on progress never times out). */
export const progressEveryMs = 4000

/**
 * Where a call is once the approval question is behind it: the executor started (since when), or
 * not yet; and the last complete line it printed (redacted), when it printed one.
 */
export type CallPhases = { runningSince(callId: string): number | undefined; lastLine?(callId: string): string | undefined }

/**
 * Sends MCP progress notifications (`notifications/progress` with the request's progress token)
 * for the whole of a call, so a client that resets its request timeout on progress
 * (`resetTimeoutOnProgress`) never cancels a long one: every `everyMs` from start to result, and at
 * once when the phase changes. The message says the phase: waiting for the operator's approval
 * (the item, what is asked, when it expires), the decision, preparing (policy, provisioning, the
 * sandbox) or running, with the time so far and the last line the command printed. Returns the
 * function that stops (call it when the call ends).
 */
export function reportCallProgress(input: {
  callId: string
  progressToken: ProgressToken
  approvalWaits?: ApprovalWaits
  phases?: CallPhases
  send: (notification: ServerNotification) => Promise<void>
  everyMs?: number
  now?: () => number
}): () => void {
  const now = input.now ?? (() => performance.now())
  const started = now()
  let progress = 0
  let waiting: string | undefined
  const notify = (message: string) => {
    progress += 1
    void input.send({ method: 'notifications/progress', params: { progressToken: input.progressToken, progress, message } }).catch(() => undefined)
  }
  const seconds = (since: number) => `${Math.round((now() - since) / 1000)} s`
  const tick = () => {
    if (waiting) return notify(waiting)
    const running = input.phases?.runningSince(input.callId)
    if (running === undefined) return notify(`preparing (${seconds(started)} since the call arrived)`)
    const line = input.phases?.lastLine?.(input.callId)
    notify(`running for ${seconds(running)}${line === undefined ? '' : ` — last output: ${line}`}`)
  }
  const heartbeat = setInterval(tick, input.everyMs ?? progressEveryMs)
  heartbeat.unref()
  const unwatch = input.approvalWaits?.watchCall(input.callId, (update) => {
    if (update.state !== 'waiting') {
      waiting = undefined
      notify(`approval ${update.approvalId}: ${update.state}${update.reason ? ` (${update.reason})` : ''}`)
      return
    }
    waiting = `waiting for the operator's approval (item ${update.approvalId}${update.summary ? `: ${update.summary}` : ''}${update.expiresAt ? `; denied if not decided by ${update.expiresAt}` : ''})`
    notify(waiting)
  })
  return () => {
    clearInterval(heartbeat)
    unwatch?.()
  }
}
