import type { Database } from 'better-sqlite3'
import { hashOfSortedValues, sortedHashedColumns } from './action-call-chain'
import {
  approvalDecisionDigest,
  approvalRequestColumns,
  approvalRequestDigest,
  callBeginDigestOfValues,
  entryHash,
  eventDigest,
  genesisHash,
  ledgerKinds,
  type LedgerHead,
  type LedgerRef
} from './audit-ledger'

/** What a walk of the ledger found: its entries and head, or the first problem (and the call it concerns, if one). */
export type LedgerVerification =
  | { ok: true; entries: number; head: LedgerHead | null }
  | { ok: false; entries: number; reason: string; call?: { seq: number; id: string | null } }

type Step = { seq: number | null; digest: string | null }

/**
 * Checks the ledger against itself and against the live rows (see audit-ledger.ts): every entry's
 * link and hash in order, then every call, approval and event against the entries its state needs,
 * then entries whose row is gone. Run it after `verifyChain` passed, in the same read transaction:
 * an ended call's end entry is compared with the row's stored hash, which that walk proved is the
 * hash of the row as it is (so a million rows are not hashed twice).
 */
export function verifyLedger(db: Database): LedgerVerification {
  let entries = 0
  let previous = genesisHash
  const kinds = new Set<string>(ledgerKinds)
  const broken = (reason: string, call?: { seq: number; id: string | null }): LedgerVerification => ({ ok: false, entries, reason, ...(call ? { call } : {}) })
  const walk = db.prepare('select seq, kind, ref, digest, prev_hash, hash from ledger order by seq').raw()
  for (const [seq, kind, ref, digest, prevHash, hash] of walk.iterate() as Iterable<[number, string, LedgerRef, string, string, string]>) {
    if (seq !== entries + 1) return broken(`ledger entry ${seq} follows entry ${entries}: entries between them were deleted`)
    if (!kinds.has(kind)) return broken(`ledger entry ${seq} records an unknown step ${JSON.stringify(kind)}: it was written outside Airlock`)
    if (prevHash !== previous) return broken(`ledger entry ${seq}'s prev_hash is not the hash of entry ${entries}: an entry was changed or replaced`)
    if (entryHash({ seq, kind, ref, digest, prevHash }) !== hash) return broken(`ledger entry ${seq} does not match its hash: the entry was changed`)
    previous = hash
    entries += 1
  }
  const duplicate = db.prepare('select kind, ref from ledger group by kind, ref having count(*) > 1 limit 1').get() as
    | { kind: string; ref: LedgerRef }
    | undefined
  if (duplicate) return broken(`the ledger records ${duplicate.kind} of ${JSON.stringify(duplicate.ref)} twice: an entry was added outside Airlock`)
  const problem = checkCalls(db) ?? checkApprovals(db) ?? checkEvents(db) ?? checkGone(db)
  if (problem) return broken(problem.reason, problem.call)
  return { ok: true, entries, head: entries === 0 ? null : { seq: entries, hash: previous } }
}

type Problem = { reason: string; call?: { seq: number; id: string | null } }

const stepColumns = (alias: string, name: string) => `${alias}.seq as ${name}_seq, ${alias}.digest as ${name}_digest`
const stepOf = (row: Record<string, unknown>, name: string): Step => ({
  seq: row[`${name}_seq`] as number | null,
  digest: row[`${name}_digest`] as string | null
})

function checkCalls(db: Database): Problem | undefined {
  // Raw arrays of the hashed columns in encoding order, then the two steps: the walk reads every call.
  const at = (column: (typeof sortedHashedColumns)[number]) => sortedHashedColumns.indexOf(column)
  const [seqAt, idAt, statusAt, width] = [at('seq'), at('id'), at('status'), sortedHashedColumns.length]
  const rows = db
    .prepare(
      `select ${sortedHashedColumns.map((column) => `c.${column}`).join(', ')}, b.seq, b.digest, e.seq, e.digest, c.hash from action_calls c
       left join ledger b on b.kind = 'call.begin' and b.ref = cast(c.seq as text)
       left join ledger e on e.kind = 'call.end' and e.ref = cast(c.seq as text)
       order by c.seq`
    )
    .raw()
  for (const values of rows.iterate() as Iterable<unknown[]>) {
    const call = { seq: values[seqAt] as number, id: values[idAt] as string | null }
    const name = `call ${call.id} (seq ${call.seq})`
    const begin: Step = { seq: values[width] as number | null, digest: values[width + 1] as string | null }
    const end: Step = { seq: values[width + 2] as number | null, digest: values[width + 3] as string | null }
    if (begin.seq === null) return { reason: `${name} is not in the ledger: it was inserted outside Airlock`, call }
    if (begin.digest !== callBeginDigestOfValues(values))
      return { reason: `${name}: what it was started with does not match ledger entry ${begin.seq}: the row was changed`, call }
    if (values[statusAt] === 'running') {
      if (end.seq !== null) return { reason: `${name} is running, but ledger entry ${end.seq} records its end: the row was changed back`, call }
      // A running row holds nothing but its start: the whole row hashes as it did when it began.
      if (hashOfSortedValues(values.slice(0, width)) !== begin.digest)
        return { reason: `${name} is running but holds facts it was not started with: the row was changed`, call }
      continue
    }
    if (end.seq === null) return { reason: `${name} ended, but its end is not in the ledger: it was ended or changed outside Airlock`, call }
    if (end.seq < begin.seq) return { reason: `${name}: its end (ledger entry ${end.seq}) comes before its begin: the ledger was rewritten`, call }
    // The chain walk (verifyChain, same snapshot) proved the stored hash is the ended row's hash.
    if (end.digest !== values[width + 4]) return { reason: `${name}: its end does not match ledger entry ${end.seq}: the row was changed`, call }
  }
  return undefined
}

function checkApprovals(db: Database): Problem | undefined {
  const rows = db.prepare(
    `select ${approvalRequestColumns.map((column) => `a.${column}`).join(', ')}, a.agent_id, a.session_id, a.status, a.decision_json, a.decided_at,
       ${stepColumns('r', 'request')}, ${stepColumns('d', 'decision')},
       exists (select 1 from agents where id = a.agent_ref) as agent_exists,
       exists (select 1 from sessions where id = a.session_ref) as session_exists
     from approvals a
     left join ledger r on r.kind = 'approval.request' and r.ref = a.id
     left join ledger d on d.kind = 'approval.decision' and d.ref = a.id
     order by a.created_at, a.rowid`
  )
  for (const row of rows.iterate() as Iterable<Record<string, unknown>>) {
    const name = `approval ${row.id}`
    const [request, decision] = [stepOf(row, 'request'), stepOf(row, 'decision')]
    if (request.seq === null) return { reason: `${name} is not in the ledger: it was inserted outside Airlock` }
    if (request.digest !== approvalRequestDigest(row))
      return { reason: `${name}: its request (who, what, when, why) does not match ledger entry ${request.seq}: the row was changed` }
    // SQLite itself sets these to null when the agent or session is removed; any other value is an edit.
    if (row.agent_id !== row.agent_ref && !(row.agent_id === null && row.agent_exists === 0))
      return { reason: `${name}: its agent is not the one that asked (ledger entry ${request.seq}): the row was changed` }
    if (row.session_id !== row.session_ref && !(row.session_id === null && row.session_exists === 0))
      return { reason: `${name}: its session is not the one that asked (ledger entry ${request.seq}): the row was changed` }
    if (row.status === 'pending') {
      if (decision.seq !== null) return { reason: `${name} is pending, but ledger entry ${decision.seq} records its decision: the decision was removed` }
      if (row.decision_json !== null || row.decided_at !== null)
        return { reason: `${name} is pending but holds a decision that is not in the ledger: the row was changed` }
      continue
    }
    if (decision.seq === null) return { reason: `${name} has a decision (${row.status}) that is not in the ledger: it was decided outside Airlock` }
    if (decision.seq < request.seq) return { reason: `${name}: its decision (ledger entry ${decision.seq}) comes before its request: the ledger was rewritten` }
    if (decision.digest !== approvalDecisionDigest(row))
      return { reason: `${name}: its decision (status, who, scope, reason, when) does not match ledger entry ${decision.seq}: the row was changed` }
  }
  return undefined
}

function checkEvents(db: Database): Problem | undefined {
  const rows = db.prepare(
    `select v.seq, v.type, v.payload_json, v.at, ${stepColumns('l', 'entry')} from events v left join ledger l on l.kind = 'event' and l.ref = cast(v.seq as text) order by v.seq`
  )
  for (const row of rows.iterate() as Iterable<Record<string, unknown>>) {
    const entry = stepOf(row, 'entry')
    if (entry.seq === null) return { reason: `audit event ${row.seq} (${row.type}) is not in the ledger: it was inserted outside Airlock` }
    if (entry.digest !== eventDigest(row))
      return { reason: `audit event ${row.seq} (${row.type}) does not match ledger entry ${entry.seq}: the event was changed` }
  }
  return undefined
}

const what: Record<string, string> = {
  'call.begin': 'call',
  'call.end': 'call',
  'approval.request': 'approval',
  'approval.decision': 'approval',
  event: 'audit event'
}

/** The first entry whose row no longer exists. */
function checkGone(db: Database): Problem | undefined {
  const gone = db
    .prepare(
      `select l.seq, l.kind, l.ref from ledger l where
         (l.kind in ('call.begin', 'call.end') and not exists (select 1 from action_calls c where c.seq = l.ref))
         or (l.kind in ('approval.request', 'approval.decision') and not exists (select 1 from approvals a where a.id = l.ref))
         or (l.kind = 'event' and not exists (select 1 from events v where v.seq = l.ref))
       order by l.seq limit 1`
    )
    .get() as { seq: number; kind: string; ref: LedgerRef } | undefined
  if (!gone) return undefined
  const reason = `ledger entry ${gone.seq} records ${what[gone.kind]} ${gone.ref} (${gone.kind}), which is gone: the row was deleted`
  return gone.kind.startsWith('call.') ? { reason, call: { seq: Number(gone.ref), id: null } } : { reason }
}
