import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import { appendLedger, approvalDecisionDigest, approvalRequestColumns, approvalRequestDigest } from './audit-ledger'
import {
  approvalDecisionViewSchema,
  approvalKindSchema,
  approvalViewSchema,
  type ApprovalDecisionView,
  type ApprovalStatus,
  type ApprovalView
} from '@shared/approvals'

type Row = {
  id: string
  agent_id: string | null
  session_id: string | null
  tool: string
  status: ApprovalStatus
  summary: string
  risk_flags_json: string
  request_json: string
  decision_json: string | null
  created_at: string
  expires_at: string
  kind: string
  count: number
  waiting: number
  watched_at: string | null
}

/** What the queue keeps of a request beyond its columns: for the person deciding, and the rule it could become. */
const requestDocumentSchema = approvalViewSchema.pick({
  reason: true,
  policyRule: true,
  commands: true,
  preview: true,
  planted: true,
  classification: true,
  proposedRule: true
})

/** A new queue item: everything a view shows but what only deciding and waiting fill in. */
export type NewApproval = Omit<ApprovalView, 'status' | 'count' | 'waiting' | 'decision'> & {
  /** Identical pending requests of one agent share it (null: never batched). */
  batchKey: string | null
}

/**
 * How long a waiter's heartbeat counts: a process with calls waiting on an item notes it every
 * second; past this, its `waiting` count is what a crash left behind and counts as nobody.
 */
export const watchFreshMs = 10_000

const columns =
  'id, agent_id, session_id, tool, status, summary, risk_flags_json, request_json, decision_json, created_at, expires_at, kind, count, waiting, watched_at'

/**
 * The approval queue's items (SPEC §7, table `approvals`): one row per item, from `pending` to
 * `approved`, `denied` or `expired` exactly once (every change of status is conditional on
 * `pending`, so two deciders — the console and the CLI — cannot both win). Rows whose JSON no
 * longer validates (a hand-edited database) are left out of every read. The request and the
 * decision each join the audit ledger (audit-ledger.ts) in the transaction that writes them.
 */
export class ApprovalRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date()
  ) {}

  /** Adds a pending item with one call waiting for it in this process, and its `approval.request` ledger entry. */
  insert(item: NewApproval): ApprovalView {
    const document = requestDocumentSchema.parse(item)
    const at = this.now().toISOString()
    this.db
      .transaction(() => {
        const row = this.db
          .prepare(
            `insert into approvals (id, agent_id, session_id, agent_ref, session_ref, tool, status, summary, risk_flags_json, request_json, created_at, expires_at, kind, batch_key, count, waiting, watched_at)
             values (@id, @agentId, @sessionId, @agentId, @sessionId, @tool, 'pending', @summary, @riskFlags, @request, @createdAt, @expiresAt, @kind, @batchKey, 1, 1, @at)
             returning ${approvalRequestColumns.join(', ')}`
          )
          .get({ ...item, riskFlags: JSON.stringify(item.riskFlags), request: JSON.stringify(document), at }) as Record<string, unknown>
        appendLedger(this.db, 'approval.request', item.id, approvalRequestDigest(row))
      })
      .immediate()
    return this.get(item.id)!
  }

  /** The pending item of an agent with this batch key, if one waits (and has not expired). */
  findPending(batchKey: string, agentId: string | null): ApprovalView | undefined {
    const row = this.db
      .prepare(`select ${columns} from approvals where batch_key = ? and status = 'pending' and agent_id is ? and expires_at > ? order by created_at limit 1`)
      .get(batchKey, agentId, this.now().toISOString()) as Row | undefined
    return row ? this.readable([row])[0] : undefined
  }

  /** How many distinct items of an agent wait for a decision now (pending and not past their time). */
  pendingOf(agentId: string): number {
    return this.db
      .prepare("select count(*) from approvals where agent_id = ? and status = 'pending' and expires_at > ?")
      .pluck()
      .get(agentId, this.now().toISOString()) as number
  }

  /** Another identical request joins a pending item: one more in `count`, one more waiting. False when it is no longer pending. */
  join(id: string): boolean {
    return (
      this.db
        .prepare("update approvals set count = count + 1, waiting = waiting + 1, watched_at = ? where id = ? and status = 'pending'")
        .run(this.now().toISOString(), id).changes === 1
    )
  }

  /** A call starts waiting on an item again (without joining it as a new request). */
  addWaiting(id: string, count: number): void {
    this.db.prepare('update approvals set waiting = waiting + ?, watched_at = ? where id = ?').run(count, this.now().toISOString(), id)
  }

  /** Calls of this process stopped waiting on an item. */
  removeWaiting(id: string, count: number): void {
    this.db.prepare('update approvals set waiting = max(0, waiting - ?) where id = ?').run(count, id)
  }

  /** The heartbeat of the items this process has waiting calls on. */
  watch(ids: readonly string[]): void {
    if (ids.length === 0) return
    const at = this.now().toISOString()
    const statement = this.db.prepare("update approvals set watched_at = ? where id = ? and status = 'pending'")
    this.db.transaction(() => {
      for (const id of ids) statement.run(at, id)
    })()
  }

  /** Whether a live process has calls waiting on an item (its heartbeat is fresh). */
  watched(id: string): boolean {
    const row = this.db.prepare('select waiting, watched_at from approvals where id = ?').get(id) as { waiting: number; watched_at: string | null } | undefined
    return row !== undefined && row.waiting > 0 && this.fresh(row.watched_at)
  }

  /** Moves a pending item to its decided status, with its `approval.decision` ledger entry; false when it was not pending (decided once). */
  decide(id: string, status: 'approved' | 'denied' | 'expired', decision: ApprovalDecisionView): boolean {
    const parsed = approvalDecisionViewSchema.parse(decision)
    return this.db
      .transaction(() => {
        const row = this.db
          .prepare(
            "update approvals set status = ?, decision_json = ?, decided_at = ? where id = ? and status = 'pending' returning id, status, decision_json, decided_at"
          )
          .get(status, JSON.stringify(parsed), parsed.decidedAt, id) as Record<string, unknown> | undefined
        if (row) appendLedger(this.db, 'approval.decision', id, approvalDecisionDigest(row))
        return row !== undefined
      })
      .immediate()
  }

  /** Records that `count` more waiting calls received an item's decision. */
  addDelivered(id: string, count: number): void {
    if (count === 0) return
    this.db
      .prepare(
        "update approvals set decision_json = json_set(decision_json, '$.delivered', coalesce(json_extract(decision_json, '$.delivered'), 0) + ?) where id = ? and decision_json is not null"
      )
      .run(count, id)
  }

  /** Ids of pending items whose time ran out. */
  due(): string[] {
    return this.db.prepare("select id from approvals where status = 'pending' and expires_at <= ?").pluck().all(this.now().toISOString()) as string[]
  }

  /** One item, or undefined. */
  get(id: string): ApprovalView | undefined {
    const row = this.db.prepare(`select ${columns} from approvals where id = ?`).get(id) as Row | undefined
    return row ? this.readable([row])[0] : undefined
  }

  /**
   * Items newest first: only `statuses` when given (at most `limit`, default 1000, up to 5000).
   * When there are more, the limit is shared out fairly rather than taken from the top: every
   * agent's newest item first, then every agent's second newest, and so on. One agent flooding the
   * queue thus never pushes another agent's newest items out of the list.
   */
  list(options: { statuses?: readonly ApprovalStatus[]; limit?: number } = {}): ApprovalView[] {
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? 1000), 1), 5000)
    const statuses = options.statuses ?? []
    const where = statuses.length > 0 ? `where status in (${statuses.map(() => '?').join(', ')})` : ''
    const rows = this.db
      .prepare(
        `select ${columns} from (
           select ${columns}, rowid as seq, row_number() over (partition by coalesce(agent_id, '') order by created_at desc, rowid desc) as turn
           from approvals ${where}
           order by turn, created_at desc, rowid desc limit ?
         ) order by created_at desc, seq desc`
      )
      .all(...statuses, limit) as Row[]
    return this.readable(rows)
  }

  /** A cheap summary of the table's state: it changes whenever an item is added, joined or decided. */
  fingerprint(): string {
    const row = this.db
      .prepare(
        "select count(*) as n, coalesce(sum(count), 0) as c, coalesce(max(decided_at), '') as d, coalesce(sum(status = 'pending'), 0) as p from approvals"
      )
      .get() as Record<string, unknown>
    return JSON.stringify(row)
  }

  private fresh(watchedAt: string | null): boolean {
    return watchedAt !== null && this.now().getTime() - Date.parse(watchedAt) <= watchFreshMs
  }

  private readable(rows: Row[]): ApprovalView[] {
    const views: ApprovalView[] = []
    for (const row of rows) {
      try {
        const document = requestDocumentSchema.parse(JSON.parse(row.request_json))
        const decision = row.decision_json === null ? null : approvalDecisionViewSchema.parse(JSON.parse(row.decision_json))
        const riskFlags = z.array(z.string()).parse(JSON.parse(row.risk_flags_json))
        views.push({
          id: row.id,
          agentId: row.agent_id,
          sessionId: row.session_id,
          tool: row.tool,
          status: row.status,
          summary: row.summary,
          riskFlags,
          createdAt: row.created_at,
          expiresAt: row.expires_at,
          kind: approvalKindSchema.parse(row.kind),
          ...document,
          count: row.count,
          waiting: row.status === 'pending' && this.fresh(row.watched_at) ? row.waiting : 0,
          decision
        })
      } catch {
        continue
      }
    }
    return views
  }
}
