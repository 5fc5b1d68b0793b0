import { createHash } from 'node:crypto'
import type { Database, Statement } from 'better-sqlite3'
import { genesisHash, hashedColumns, hashOfSortedValues, rowHash, sortedHashedColumns, type ActionCallRecord } from './action-call-chain'

/**
 * The audit ledger (SPEC §10): one append-only table, `ledger`, that joins every recorded change of
 * the tamper-evident tables to one SHA-256 chain. Each step appends one entry
 * `{seq, kind, ref, digest, prev_hash, hash}` in the transaction that made the change:
 * - `call.begin`: a history row was inserted `running` (digest: its row as begun);
 * - `call.end`: the row ended and joined the history chain (digest: the row's own hash);
 * - `approval.request`: a queue item was created (who asked, for what, when, why);
 * - `approval.decision`: it was decided (status, decision, scope, reason, who, when);
 * - `event`: an audit event was appended (events are never changed).
 *
 * Why one ledger and not a hash column per table: a step is recorded once and never rewritten, so
 * an approval's request stays proven after its decision, and verification needs no old copies: each
 * digest is a function of the live row (the request part of an approval, the start part of a call),
 * recomputed and compared. Every row needs exactly its steps (a running call its begin, an ended one
 * begin and end; a pending item its request, a decided one request and decision; an event one
 * entry), so an edit is found whether or not the attacker appends an entry for it (a second
 * decision of an item is a step it cannot have), and an entry whose row is gone names the deletion.
 * Why not triggers: the appends happen in the repositories' own write paths, so SQL run outside
 * them (even through Airlock's own connection) leaves the row without a matching entry.
 *
 * What it does not cover: bookkeeping that changes while an item waits (`count`, `waiting`,
 * `watched_at`) and how many waiting calls received a decision (`delivered`); the approvals'
 * `agent_id`/`session_id`, which SQLite sets to null when the agent is removed, are checked against
 * `agent_ref`/`session_ref`, copies kept at insert. The chain has no key: whoever can write the
 * database can recompute it from an edit on, which the head anchored outside it reveals (audit-anchor.ts).
 *
 * Cost: one read of the head (primary key) and one prepared insert per change, in its transaction.
 */

/** The steps the ledger records, in the order a row goes through them. */
export const ledgerKinds = ['call.begin', 'call.end', 'approval.request', 'approval.decision', 'event'] as const

/** One kind of step. */
export type LedgerKind = (typeof ledgerKinds)[number]

/** The key of the row an entry records, as text: `action_calls.seq`, `approvals.id` or `events.seq`. */
export type LedgerRef = string

/** The newest entry: what an anchor records. */
export type LedgerHead = { seq: number; hash: string }

export { genesisHash }

/** The hash of an entry: sha256 (hex) of the JSON array `[seq, kind, ref, digest, prevHash]`. */
export function entryHash(entry: { seq: number; kind: string; ref: LedgerRef; digest: string; prevHash: string }): string {
  return sha256(JSON.stringify([entry.seq, entry.kind, entry.ref, entry.digest, entry.prevHash]))
}

/** The columns `begin` writes; the others hold `runningDefaults` until the call ends. */
export const callStartColumns = ['seq', 'id', 'agent_id', 'session_id', 'tool', 'input_summary_json', 'started_at', 'started_out_of_order'] as const

/** What every other hashed column of a running row holds (what `begin` leaves them as). */
export const runningDefaults: Record<Exclude<(typeof hashedColumns)[number], (typeof callStartColumns)[number]>, string | number | null> = {
  status: 'running',
  policy_json: null,
  approval_json: null,
  provider_id: null,
  provider_json: null,
  exit_code: null,
  stdout: null,
  stdout_log: null,
  stdout_sha256: null,
  stdout_truncated: 0,
  stderr: null,
  stderr_log: null,
  stderr_sha256: null,
  stderr_truncated: 0,
  artifacts_json: '[]',
  lineage_json: '[]',
  error_code: null,
  error_message: null,
  result_json: null,
  finished_at: null,
  duration_ms: null,
  chain_seq: null,
  prev_hash: null
}

/** Per hashed column (in encoding order): read from the row (a start column), or the running default. */
const beginTemplate = sortedHashedColumns.map((column) =>
  (callStartColumns as readonly string[]).includes(column) ? { column } : { column, value: runningDefaults[column as keyof typeof runningDefaults] }
)

/** The digest of a call's begin: `rowHash` of its start columns with every other column as a running row holds it. */
export function callBeginDigest(row: Record<string, unknown>): string {
  return hashOfSortedValues(beginTemplate.map((slot) => ('value' in slot ? slot.value : row[slot.column])))
}

/** `callBeginDigest` of a row read as the values of `sortedHashedColumns` (a raw walk of many rows). */
export function callBeginDigestOfValues(values: readonly unknown[]): string {
  return hashOfSortedValues(beginTemplate.map((slot, index) => ('value' in slot ? slot.value : values[index])))
}

/** The digest of a call's end: the hash of the ended row (the history chain's own `hash`). */
export function callEndDigest(row: Record<string, unknown>): string {
  return rowHash(row)
}

/** The approval columns a request entry covers (set at insert, never changed). */
export const approvalRequestColumns = [
  'id',
  'kind',
  'agent_ref',
  'session_ref',
  'tool',
  'summary',
  'risk_flags_json',
  'request_json',
  'batch_key',
  'created_at',
  'expires_at'
] as const

/** The digest of an approval's request: who asked (agent and session as inserted), what, why, when. */
export function approvalRequestDigest(row: Record<string, unknown>): string {
  return sha256(canonicalJson(Object.fromEntries(approvalRequestColumns.map((column) => [column, row[column] ?? null]))))
}

/**
 * The digest of an approval's decision: status, the decision document (decision, scope, reason,
 * who, rule, when) without `delivered`, which counts deliveries after the decision, and decided_at.
 */
export function approvalDecisionDigest(row: Record<string, unknown>): string {
  let decision: unknown = row.decision_json ?? null
  if (typeof decision === 'string') {
    try {
      const parsed = JSON.parse(decision) as unknown
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
        const { delivered: _counted, ...facts } = parsed as Record<string, unknown>
        decision = facts
      }
    } catch {
      // Not JSON (written outside Airlock): digested as the text it is, so it cannot match.
    }
  }
  return sha256(canonicalJson({ id: row.id ?? null, status: row.status ?? null, decision, decided_at: row.decided_at ?? null }))
}

/** The digest of an audit event: every column as stored. */
export function eventDigest(row: Record<string, unknown>): string {
  return sha256(canonicalJson({ seq: row.seq ?? null, type: row.type ?? null, payload_json: row.payload_json ?? null, at: row.at ?? null }))
}

const approvalColumns = `${approvalRequestColumns.join(', ')}, agent_id, session_id, status, decision_json, decided_at`

/**
 * The digest a step of a row would have now, read from the live row; undefined when the row is gone
 * or has not reached that step (a running call has no end, a pending item no decision).
 */
export function liveDigest(db: Database, kind: string, ref: LedgerRef): string | undefined {
  switch (kind) {
    case 'call.begin':
    case 'call.end': {
      const row = db.prepare(`select ${hashedColumns.join(', ')} from action_calls where seq = ?`).get(ref) as ActionCallRecord | undefined
      if (!row) return undefined
      if (kind === 'call.begin') return callBeginDigest(row)
      return row.status === 'running' ? undefined : callEndDigest(row)
    }
    case 'approval.request':
    case 'approval.decision': {
      const row = db.prepare(`select ${approvalColumns} from approvals where id = ?`).get(ref) as Record<string, unknown> | undefined
      if (!row) return undefined
      if (kind === 'approval.request') return approvalRequestDigest(row)
      return row.status === 'pending' ? undefined : approvalDecisionDigest(row)
    }
    case 'event': {
      const row = db.prepare('select seq, type, payload_json, at from events where seq = ?').get(ref) as Record<string, unknown> | undefined
      return row ? eventDigest(row) : undefined
    }
    default:
      return undefined
  }
}

type LedgerStatements = { head: Statement; insert: Statement }
const statementsOf = new WeakMap<Database, LedgerStatements>()

/**
 * Appends one entry to the ledger. Call it inside the transaction that made the change (so the
 * head cannot move in between, and the change and its entry commit or roll back together).
 */
export function appendLedger(db: Database, kind: LedgerKind, ref: LedgerRef, digest: string): LedgerHead {
  if (!db.inTransaction) throw new Error('appendLedger must run inside the transaction of the change it records')
  let statements = statementsOf.get(db)
  if (!statements) {
    statements = {
      head: db.prepare('select seq, hash from ledger order by seq desc limit 1'),
      insert: db.prepare('insert into ledger (seq, kind, ref, digest, prev_hash, hash) values (?, ?, ?, ?, ?, ?)')
    }
    statementsOf.set(db, statements)
  }
  const head = statements.head.get() as LedgerHead | undefined
  const seq = (head?.seq ?? 0) + 1
  const prevHash = head?.hash ?? genesisHash
  const hash = entryHash({ seq, kind, ref, digest, prevHash })
  statements.insert.run(seq, kind, ref, digest, prevHash, hash)
  return { seq, hash }
}

/** The newest entry, or null for an empty ledger. */
export function ledgerHead(db: Database): LedgerHead | null {
  return (db.prepare('select seq, hash from ledger order by seq desc limit 1').get() as LedgerHead | undefined) ?? null
}

/**
 * Appends entries for the rows an older Airlock recorded, table by table in their own order (calls
 * by seq, begin then end; approvals by creation, request then decision; events by seq). Run by the
 * migration that creates the ledger, in its transaction; the head is kept here, not read per entry.
 */
export function backfillLedger(db: Database): void {
  const insert = db.prepare('insert into ledger (seq, kind, ref, digest, prev_hash, hash) values (?, ?, ?, ?, ?, ?)')
  let head = ledgerHead(db) ?? { seq: 0, hash: genesisHash }
  const append = (kind: LedgerKind, ref: LedgerRef, digest: string) => {
    const seq = head.seq + 1
    const hash = entryHash({ seq, kind, ref, digest, prevHash: head.hash })
    insert.run(seq, kind, ref, digest, head.hash, hash)
    head = { seq, hash }
  }
  // Read in pages (a statement cannot iterate while the same connection inserts; a million rows at once would not fit).
  const pages = function* (sql: string) {
    const page = db.prepare(sql)
    for (
      let after = 0, rows = page.all(after) as Record<string, unknown>[];
      rows.length > 0;
      after = rows.at(-1)!.seq as number, rows = page.all(after) as Record<string, unknown>[]
    )
      yield* rows
  }
  for (const row of pages(`select ${hashedColumns.join(', ')} from action_calls where seq > ? order by seq limit 5000`)) {
    append('call.begin', String(row.seq), callBeginDigest(row))
    if (row.status !== 'running') append('call.end', String(row.seq), callEndDigest(row))
  }
  for (const row of db.prepare(`select ${approvalColumns} from approvals order by created_at, rowid`).all() as Record<string, unknown>[]) {
    append('approval.request', row.id as string, approvalRequestDigest(row))
    if (row.status !== 'pending') append('approval.decision', row.id as string, approvalDecisionDigest(row))
  }
  for (const row of pages('select seq, type, payload_json, at from events where seq > ? order by seq limit 5000'))
    append('event', String(row.seq), eventDigest(row))
}

/** JSON with object keys sorted at every level: the same record always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const entries = Object.keys(value as Record<string, unknown>)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
  return `{${entries.join(',')}}`
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
