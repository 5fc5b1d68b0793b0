import type { ApprovalView } from '@shared/approvals'
import type { ApprovalDecision } from '../../core'
import type { ApprovalRepository } from '../../store'

/** What a watcher of one action call hears while the call waits for approval, and how it ended. */
export type ApprovalWaitEvent = {
  callId: string
  approvalId: string
  state: 'waiting' | 'approved' | 'denied' | 'expired'
  summary: string
  expiresAt: string
  remainingSeconds: number
  /** The decision's reason, once there is one. */
  reason?: string
}

/** Hears one call's approval wait (see `ApprovalQueue.watchCall`). */
export type ApprovalWaitListener = (event: ApprovalWaitEvent) => void

type Waiter = { callId?: string; revealable?: unknown; settle(decision: ApprovalDecision, state: ApprovalWaitEvent['state']): void }
type Entry = { item: Pick<ApprovalView, 'id' | 'summary' | 'expiresAt'>; waiters: Set<Waiter>; timer?: NodeJS.Timeout }

/** The longest a timer can be set for; a later expiry re-arms. */
const maxTimerMs = 2 ** 31 - 1

/**
 * The calls of this process waiting on queue items: one entry per item with its waiters and its
 * expiry timer, the heartbeat that tells other processes someone waits (`waiting`, `watched_at`),
 * and the listeners that follow single calls. Deciding reads the item's stored status, so a
 * decision made here and one made by another process reach waiters the same way.
 */
export class ApprovalWaiters {
  private readonly entries = new Map<string, Entry>()
  private readonly listeners = new Map<string, Set<ApprovalWaitListener>>()
  private readonly states = new Map<string, ApprovalWaitEvent>()

  constructor(
    private readonly options: {
      approvals: ApprovalRepository
      /** An item's time ran out (or its last call went away with its agent): expire it. */
      onExpire(id: string, by: 'timeout' | 'cancelled', reason?: string): void
    }
  ) {}

  /**
   * Waits for an item's decision. The item's stored `waiting` count already includes this call
   * (insert and join count it). When the signal aborts, the call stops waiting; the item stays
   * pending for a retry, unless the agent was disabled or removed, or the egress connection that
   * asked went away (`requester_gone`), and nobody else waits.
   */
  /** What the operator may reveal of an item's request: the unredacted input of the first call waiting for it here, if any was redacted. */
  revealable(itemId: string): unknown {
    for (const waiter of this.entries.get(itemId)?.waiters ?? []) if (waiter.revealable !== undefined) return waiter.revealable
    return undefined
  }

  wait(item: ApprovalView, callId: string | undefined, signal: AbortSignal | undefined, revealable?: unknown): Promise<ApprovalDecision> {
    const entry = this.entryFor(item)
    return new Promise<ApprovalDecision>((resolve) => {
      const onAbort = () => {
        if (!entry.waiters.delete(waiter)) return
        this.options.approvals.removeWaiting(item.id, 1)
        waiter.settle({ status: 'denied', reason: 'the call was cancelled while it waited for approval', approvalId: item.id }, 'denied')
        if (entry.waiters.size > 0) return
        this.drop(item.id)
        const why = (signal?.reason as { airlock?: unknown } | undefined)?.airlock
        if (why === 'agent_disabled' || why === 'agent_removed')
          this.options.onExpire(item.id, 'cancelled', `its agent was ${why === 'agent_disabled' ? 'disabled' : 'removed'} while the call waited`)
        // A network connection that asked and went away: nobody will use the answer.
        if (why === 'requester_gone') this.options.onExpire(item.id, 'cancelled', 'the connection that asked was closed before anyone decided')
      }
      const waiter: Waiter = {
        callId,
        revealable,
        settle: (decision, state) => {
          signal?.removeEventListener('abort', onAbort)
          if (callId) this.emit(callId, { ...this.stateOf(callId, entry, 'waiting'), state, reason: decision.reason })
          if (callId) this.states.delete(callId)
          resolve(decision)
        }
      }
      entry.waiters.add(waiter)
      signal?.addEventListener('abort', onAbort, { once: true })
      if (callId) {
        const state = this.stateOf(callId, entry, 'waiting')
        this.states.set(callId, state)
        this.emit(callId, state)
      }
    })
  }

  /** Calls of this process waiting on an item. */
  count(id: string): number {
    return this.entries.get(id)?.waiters.size ?? 0
  }

  /** Items with calls waiting here. */
  itemIds(): string[] {
    return [...this.entries.keys()]
  }

  /** Hands a decided item's outcome to the calls waiting on it here (nothing while it is pending). */
  deliver(id: string): void {
    const entry = this.entries.get(id)
    if (!entry) return
    const item = this.options.approvals.get(id)
    const decision = item ? decisionOf(item) : { status: 'denied' as const, reason: 'the approval item disappeared from the store', approvalId: id }
    if (!decision) return
    this.drop(id)
    const count = entry.waiters.size
    this.options.approvals.removeWaiting(id, count)
    this.options.approvals.addDelivered(id, count)
    const state = item?.status === 'approved' ? 'approved' : item?.status === 'expired' ? 'expired' : 'denied'
    for (const waiter of entry.waiters) waiter.settle(decision, state)
  }

  /** Notes in the store that calls here still wait (every second); with `progress`, tells call watchers the time left. */
  heartbeat(progress: boolean): void {
    this.options.approvals.watch(this.itemIds())
    if (!progress) return
    for (const [callId, state] of this.states) this.emit(callId, { ...state, remainingSeconds: remaining(state.expiresAt) })
  }

  /** Follows a call's wait; a call already waiting is reported at once. */
  watchCall(callId: string, listener: ApprovalWaitListener): () => void {
    const set = this.listeners.get(callId) ?? new Set()
    set.add(listener)
    this.listeners.set(callId, set)
    const state = this.states.get(callId)
    if (state) listener({ ...state, remainingSeconds: remaining(state.expiresAt) })
    return () => {
      set.delete(listener)
      if (set.size === 0 && this.listeners.get(callId) === set) this.listeners.delete(callId)
    }
  }

  /** Denies every call waiting here (the process stops); their items stay pending. */
  releaseAll(reason: string): void {
    for (const [id, entry] of [...this.entries]) {
      this.drop(id)
      this.options.approvals.removeWaiting(id, entry.waiters.size)
      for (const waiter of entry.waiters) waiter.settle({ status: 'denied', reason, approvalId: id }, 'denied')
    }
  }

  private entryFor(item: ApprovalView): Entry {
    const existing = this.entries.get(item.id)
    if (existing) return existing
    const entry: Entry = { item: { id: item.id, summary: item.summary, expiresAt: item.expiresAt }, waiters: new Set() }
    const arm = () => {
      const left = Date.parse(item.expiresAt) - Date.now()
      if (left <= 0) return this.options.onExpire(item.id, 'timeout')
      entry.timer = setTimeout(arm, Math.min(left, maxTimerMs))
      entry.timer.unref()
    }
    this.entries.set(item.id, entry)
    entry.timer = setTimeout(arm, Math.min(Math.max(Date.parse(item.expiresAt) - Date.now(), 0), maxTimerMs))
    entry.timer.unref()
    return entry
  }

  private drop(id: string): void {
    const entry = this.entries.get(id)
    if (!entry) return
    clearTimeout(entry.timer)
    this.entries.delete(id)
  }

  private stateOf(callId: string, entry: Entry, state: ApprovalWaitEvent['state']): ApprovalWaitEvent {
    return {
      callId,
      approvalId: entry.item.id,
      state,
      summary: entry.item.summary,
      expiresAt: entry.item.expiresAt,
      remainingSeconds: remaining(entry.item.expiresAt)
    }
  }

  private emit(callId: string, event: ApprovalWaitEvent): void {
    for (const listener of [...(this.listeners.get(callId) ?? [])]) {
      try {
        listener(event)
      } catch {
        // A watcher's failure never reaches the waiting call.
      }
    }
  }
}

/** What a decided item means for the calls that waited on it; undefined while it is pending. */
function decisionOf(item: ApprovalView): ApprovalDecision | undefined {
  if (item.status === 'pending' || !item.decision) return undefined
  const { decision } = item
  if (item.status === 'approved') {
    return {
      status: 'approved',
      reason: `${decision.reason} by the operator (${decision.by})`,
      approvalId: item.id,
      ...(decision.scope ? { scope: decision.scope } : {}),
      ...(decision.ruleId ? { ruleId: decision.ruleId } : {})
    }
  }
  if (item.status === 'denied') return { status: 'denied', reason: `denied by the operator: ${decision.reason}`, approvalId: item.id }
  return { status: 'denied', reason: decision.decision === 'expire' ? decision.reason : `the request expired: ${decision.reason}`, approvalId: item.id }
}

function remaining(expiresAt: string): number {
  return Math.max(0, Math.round((Date.parse(expiresAt) - Date.now()) / 1000))
}
