import { randomUUID } from 'node:crypto'
import type { ApprovalChangedEvent, ApprovalDecisionInput, ApprovalStatus, ApprovalView, RuleChangedEvent } from '@shared/approvals'
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from '../../core'
import type { Store } from '../../store'
import { ApprovalDecisions, type DecidedBy } from './approval-decisions'
import { ApprovalError } from './approval-errors'
import { prepareRequest, type PreparedRequest } from './approval-requests'
import { ApprovalWaiters, type ApprovalWaitListener } from './approval-waiters'
import type { RuleService } from './rule-service'

/**
 * The most distinct pending items one agent may hold (SPEC §7). An agent chooses how often it asks,
 * and its items stay pending for their whole timeout even when its calls went away, so without a
 * cap one agent could bury every other agent's request under its own. 32 is far above what a
 * person decides at once; past it a new request is denied at once with a reason naming the cap,
 * and nothing is stored (an identical request still joins its pending item).
 */
export const maxPendingPerAgent = 32

/** What the queue is built from. */
export type ApprovalQueueOptions = {
  store: Pick<Store, 'db' | 'approvals' | 'rules' | 'events'>
  rules: RuleService
  onChange?: (event: ApprovalChangedEvent) => void
  onRulesChange?: (event: RuleChangedEvent) => void
  /** How often the database is polled for other processes' decisions (ms, default 200). */
  pollMs?: number
  logError?: (message: string, error: unknown) => void
}

/**
 * The operator's approval queue (SPEC §7) and the `console` approval handler, the application's
 * default. A request first meets the remembered rules (`RuleService.findMatch`); otherwise it
 * becomes a queue item in SQLite (or joins the identical pending item of its agent) and the call
 * waits until the operator decides, the item expires (denied: fail closed), or the call's signal
 * aborts. Decisions come from this process (the console's IPC) or from another one through the
 * shared database (the CLI): the queue polls `PRAGMA data_version`, which changes only when another
 * connection committed, and hands decisions to the waiting calls within a poll. Items outlive the
 * process: at start, items past their time are expired; the others stay pending, and an identical
 * retry of the agent joins and waits for them.
 */
export class ApprovalQueue {
  /** The `console` handler: register it with `PolicyApproval` and make it the default. */
  readonly handler: ApprovalHandler = (request) => this.ask(request)
  readonly decisions: ApprovalDecisions
  private readonly waiters: ApprovalWaiters
  private poll?: NodeJS.Timeout
  private lastVersion = -1
  private seen = { approvals: '', rules: '' }
  private ticks = 0
  private stopped = false

  constructor(private readonly options: ApprovalQueueOptions) {
    this.decisions = new ApprovalDecisions({ store: options.store, rules: options.rules })
    this.waiters = new ApprovalWaiters({
      approvals: options.store.approvals,
      onExpire: (id, by, reason) => this.expire(id, by, reason ?? this.timeoutReason(id))
    })
  }

  /** Expires what ran out while no console ran, and starts watching the database. Returns the stopper. */
  start(): () => Promise<void> {
    for (const id of this.options.store.approvals.due())
      this.expire(id, 'restart', 'nobody decided before it expired (Airlock was not running): denied, fail closed')
    this.lastVersion = this.dataVersion()
    this.seen = this.fingerprints()
    this.poll = setInterval(() => this.tick(), this.options.pollMs ?? 200)
    this.poll.unref()
    return () => this.stop()
  }

  /**
   * Items newest first: pending ones (default), those of one status, or all; at most `limit`
   * (default 1000), chosen so that one agent's flood never pushes another agent's newest items out
   * (see `ApprovalRepository.list`).
   */
  list(options: { status?: ApprovalStatus | 'all'; limit?: number } = {}): ApprovalView[] {
    const status = options.status ?? 'pending'
    return this.options.store.approvals.list({ ...(status === 'all' ? {} : { statuses: [status] }), limit: options.limit })
  }

  /** One item, or an `approval.not_found` error. */
  get(id: string): ApprovalView {
    const item = this.options.store.approvals.get(id)
    if (!item) throw new ApprovalError('approval.not_found', `There is no approval ${JSON.stringify(id)}.`, { id })
    return item
  }

  /**
   * The operator reveals what redaction hid in a pending request (the values of the agent's known
   * secrets and credential shapes): the unredacted input of a call waiting for it in this process,
   * recorded in the audit log (`approval.revealed`, never the values). Refused once the item is
   * decided or expired (its call no longer waits), when nothing in it was redacted, and when the
   * call waits in another process (the values never leave the process that holds them).
   */
  reveal(id: string, by: 'console' | 'cli'): { input: unknown } {
    const item = this.get(id)
    if (item.status !== 'pending')
      throw new ApprovalError('approval.not_revealable', `Approval ${id} was ${item.status}: what it hid is gone with the call that asked.`, { id })
    const input = this.waiters.revealable(id)
    if (input === undefined) {
      throw new ApprovalError(
        'approval.not_revealable',
        `Approval ${id} has nothing to reveal here: nothing in it was redacted, or the call that asked waits in another Airlock process.`,
        { id }
      )
    }
    this.options.store.events.append('approval.revealed', { approvalId: id, agentId: item.agentId, by })
    return { input }
  }

  /** The operator decides an item (see `ApprovalDecisions`); the calls waiting here get the decision at once. */
  decide(input: ApprovalDecisionInput, by: DecidedBy = 'console'): ApprovalView {
    const decided = this.decisions.decide(input, by, (id) => this.waiters.count(id))
    this.waiters.deliver(decided.item.id)
    const late = decided.item.decision?.decision === 'expire'
    this.changed(
      { approvalId: decided.item.id, change: late ? 'expired' : 'decided' },
      decided.rule ? { ruleId: decided.rule.id, change: 'created' } : undefined
    )
    return this.get(decided.item.id)
  }

  /**
   * Follows one action call while it waits for approval (the gateway sends progress): the listener
   * hears `waiting` when the call is queued (at once, if it already waits), again every few
   * seconds with the time left, and the outcome. Returns the unsubscribe function.
   */
  watchCall(actionCallId: string, listener: ApprovalWaitListener): () => void {
    return this.waiters.watchCall(actionCallId, listener)
  }

  /** Stops watching; calls still waiting are denied (their items stay pending for the next start). */
  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    clearInterval(this.poll)
    this.waiters.releaseAll('Airlock stopped while this call waited for approval; the request stays in the queue')
  }

  private async ask(request: ApprovalRequest): Promise<ApprovalDecision> {
    if (this.stopped) return { status: 'denied', reason: 'Airlock is stopping: nobody can decide now' }
    const analyzer = await this.options.rules.loadAnalyzer()
    const prepared = prepareRequest(request, analyzer)
    const rule = await this.options.rules.findMatch(prepared.facts, prepared.item.sessionId)
    if (rule) return { status: 'approved', reason: `remembered rule ${rule.id} (${rule.scope}): ${rule.description}`, ruleId: rule.id, scope: 'rule' }
    if (this.stopped) return { status: 'denied', reason: 'Airlock is stopping: nobody can decide now' }
    if (request.signal?.aborted) return { status: 'denied', reason: 'the call was cancelled before it was queued' }
    const queued = this.enqueue(prepared)
    if ('refused' in queued) {
      this.options.store.events.append('approval.refused', {
        agentId: prepared.item.agentId,
        sessionId: prepared.item.sessionId,
        tool: prepared.item.tool,
        pending: queued.pending,
        cap: maxPendingPerAgent
      })
      return { status: 'denied', reason: queued.refused }
    }
    const { item, joined } = queued
    this.options.store.events.append('approval.requested', {
      approvalId: item.id,
      agentId: item.agentId,
      sessionId: item.sessionId,
      tool: item.tool,
      kind: item.kind,
      policyRule: item.policyRule,
      riskFlags: item.riskFlags,
      count: item.count
    })
    const waiting = this.waiters.wait(item, request.actionCallId, request.signal, request.revealable)
    this.changed({ approvalId: item.id, change: joined ? 'joined' : 'requested' })
    return waiting
  }

  /**
   * Joins the identical pending item of the agent, or adds a new one: one immediate transaction.
   * An agent already holding `maxPendingPerAgent` distinct pending items gets no new one: the
   * request is refused (no row), joining an item it has still works.
   */
  private enqueue(prepared: PreparedRequest): { item: ApprovalView; joined: boolean } | { refused: string; pending: number } {
    const { approvals, db } = this.options.store
    return db
      .transaction(() => {
        const existing = prepared.item.batchKey ? approvals.findPending(prepared.item.batchKey, prepared.item.agentId) : undefined
        if (existing && approvals.join(existing.id)) return { item: approvals.get(existing.id)!, joined: true }
        const agentId = prepared.item.agentId
        const pending = agentId === null ? 0 : approvals.pendingOf(agentId)
        if (pending >= maxPendingPerAgent) {
          return {
            refused: `agent ${agentId} already has ${pending} requests waiting for the operator (at most ${maxPendingPerAgent} per agent): denied at once, not queued; ask again once the operator has decided some`,
            pending
          }
        }
        const now = Date.now()
        const item = {
          ...prepared.item,
          id: randomUUID(),
          createdAt: new Date(now).toISOString(),
          expiresAt: new Date(now + prepared.timeoutSeconds * 1000).toISOString()
        }
        try {
          return { item: approvals.insert(item), joined: false }
        } catch (error) {
          // A session or agent the store does not know (a caller outside the host's sessions): keep the item, unlinked.
          if ((error as { code?: string }).code !== 'SQLITE_CONSTRAINT_FOREIGNKEY') throw error
          return { item: approvals.insert({ ...item, sessionId: null, agentId: null, batchKey: null }), joined: false }
        }
      })
      .immediate()
  }

  /** Expires a pending item and tells its waiting calls (fail closed). */
  private expire(id: string, by: DecidedBy, reason: string): void {
    const expired = this.decisions.expire(id, by, reason)
    this.waiters.deliver(id)
    if (expired) this.changed({ approvalId: id, change: 'expired' })
  }

  private tick(): void {
    if (this.stopped) return
    // The store closed under the queue (a host that crashed or was torn down without disposing): stop.
    if (!this.options.store.db.open) return void this.stop()
    try {
      const version = this.dataVersion()
      if (version !== this.lastVersion) {
        this.lastVersion = version
        this.external()
      }
      this.ticks += 1
      if (this.ticks % 5 === 0) {
        this.waiters.heartbeat(this.ticks % 25 === 0)
        for (const id of this.options.store.approvals.due()) this.expire(id, 'timeout', this.timeoutReason(id))
      }
    } catch (error) {
      this.options.logError?.('Airlock: the approval queue could not read the database', error)
    }
  }

  /** Another process wrote: deliver its decisions to calls waiting here, and tell consoles. */
  private external(): void {
    for (const id of this.waiters.itemIds()) this.waiters.deliver(id)
    const now = this.fingerprints()
    if (now.approvals !== this.seen.approvals) this.options.onChange?.({ change: 'external' })
    if (now.rules !== this.seen.rules) this.options.onRulesChange?.({ change: 'external' })
    this.seen = now
  }

  private changed(event: ApprovalChangedEvent, rule?: RuleChangedEvent): void {
    this.options.onChange?.(event)
    if (rule) this.options.onRulesChange?.(rule)
    this.seen = this.fingerprints()
  }

  private timeoutReason(id: string): string {
    const item = this.options.store.approvals.get(id)
    const seconds = item ? Math.round((Date.parse(item.expiresAt) - Date.parse(item.createdAt)) / 1000) : undefined
    return `nobody decided within ${seconds ?? 'its'} seconds: the request expired and is denied (fail closed)`
  }

  private fingerprints(): { approvals: string; rules: string } {
    return { approvals: this.options.store.approvals.fingerprint(), rules: this.options.store.rules.fingerprint() }
  }

  private dataVersion(): number {
    return this.options.store.db.pragma('data_version', { simple: true }) as number
  }
}
