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

/** How often a waiting call repeats its progress, so clients that reset their timeout on progress keep waiting. */
export const approvalHeartbeatMs = 10_000

/**
 * Sends MCP progress notifications (`notifications/progress` with the request's progress token)
 * while a call waits for the operator: when it starts waiting, every `heartbeatMs` while it waits,
 * and when the item is decided. Returns the function that stops (call it when the call ends).
 */
export function reportApprovalProgress(input: {
  callId: string
  progressToken: ProgressToken
  approvalWaits: ApprovalWaits
  send: (notification: ServerNotification) => Promise<void>
  heartbeatMs?: number
}): () => void {
  let progress = 0
  let heartbeat: NodeJS.Timeout | undefined
  const notify = (message: string) => {
    progress += 1
    void input.send({ method: 'notifications/progress', params: { progressToken: input.progressToken, progress, message } }).catch(() => undefined)
  }
  const stopHeartbeat = () => {
    if (heartbeat) clearInterval(heartbeat)
    heartbeat = undefined
  }
  const unwatch = input.approvalWaits.watchCall(input.callId, (update) => {
    if (update.state !== 'waiting') {
      stopHeartbeat()
      notify(`approval ${update.approvalId}: ${update.state}${update.reason ? ` (${update.reason})` : ''}`)
      return
    }
    const waiting = `waiting for the operator's approval (item ${update.approvalId}${update.summary ? `: ${update.summary}` : ''}${update.expiresAt ? `; denied if not decided by ${update.expiresAt}` : ''})`
    notify(waiting)
    stopHeartbeat()
    heartbeat = setInterval(() => notify(waiting), input.heartbeatMs ?? approvalHeartbeatMs)
    heartbeat.unref()
  })
  return () => {
    stopHeartbeat()
    unwatch()
  }
}
