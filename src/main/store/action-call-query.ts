import type { Database } from 'better-sqlite3'
import type { HistoryDetail, HistoryListInput, HistoryPage, HistoryRow, HistoryStatus } from '@shared/ipc/history'
import type { ActionCallRecord } from './action-call-chain'

/** A history query: the IPC filters, with a limit the caller bounds (IPC ≤ 500, CLI ≤ 10 000). */
export type HistoryQuery = Omit<HistoryListInput, 'limit'> & { limit?: number }

/** The most rows one query returns, whoever asks. */
export const historyQueryMaxLimit = 10_000

const listColumns =
  'c.seq, c.id, c.agent_id, c.session_id, c.tool, c.status, c.provider_id, c.exit_code, c.duration_ms, c.waiting_since, c.started_at, c.finished_at, c.error_code, c.error_message, c.input_summary_json, c.approval_json'

/** The equality filters: column, and the letter of its token in the generated `facets` column. */
const equalityFilters = [
  ['agentId', 'agent_id', 'a'],
  ['tool', 'tool', 't'],
  ['status', 'status', 's'],
  ['providerId', 'provider_id', 'p']
] as const

/** How a set of filters is read (see `listCalls`): the tables, the conditions, and the seq column to page on. */
type CallsPlan = { from: string; where: string[]; params: (string | number)[]; seqColumn: string }

/**
 * One page of history, newest first (seq descending), after `cursor`. The plan (see the version 2
 * migration): no filter or one equality filter reads an index range ending in `seq`; text, or two
 * equality filters or more, let FTS5 intersect doclists (terms and `facets` tokens) in rowid = seq
 * order, so rows that fail a filter are never visited; a time range is first turned into a seq
 * range. Every filter is also checked exactly on the row, so the plan only decides what is read.
 */
export function listCalls(db: Database, query: HistoryQuery): HistoryPage {
  const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50), 1), historyQueryMaxLimit)
  const plan = planOf(db, query)
  if (plan === 'empty') return { rows: [] }
  const { from, where, params, seqColumn } = plan
  if (query.cursor !== undefined) {
    where.push(`${seqColumn} < ?`)
    params.push(query.cursor)
  }
  const sql = `select ${listColumns} from ${from} ${where.length > 0 ? `where ${where.join(' and ')}` : ''} order by ${seqColumn} desc limit ?`
  const rows = (db.prepare(sql).all(...params, limit + 1) as ActionCallRecord[]).map(toHistoryRow)
  if (rows.length <= limit) return { rows }
  rows.length = limit
  return { rows, nextCursor: rows[limit - 1]!.seq }
}

/** How many calls match the filters (the History view's count line): the list's plan, counted in SQL. */
export function countCalls(db: Database, query: HistoryFilters): number {
  const plan = planOf(db, query)
  if (plan === 'empty') return 0
  const sql = `select count(*) from ${plan.from} ${plan.where.length > 0 ? `where ${plan.where.join(' and ')}` : ''}`
  return db
    .prepare(sql)
    .pluck()
    .get(...plan.params) as number
}

/** The filters of a query without its paging. */
export type HistoryFilters = Omit<HistoryQuery, 'cursor' | 'limit'>

function planOf(db: Database, query: HistoryFilters): CallsPlan | 'empty' {
  const text = query.text === undefined ? undefined : ftsQuery(query.text)
  const since = query.since === undefined ? undefined : new Date(query.since).toISOString()
  const until = query.until === undefined ? undefined : new Date(query.until).toISOString()
  const range = seqRangeOf(db, since, until)
  if (text === null || range === 'empty') return 'empty'
  // `waiting_approval` is a running row that waits (`waiting_since`): the `running` token and index, then that column.
  const waiting = query.status === 'waiting_approval' || query.status === 'running' ? query.status : undefined
  const stored = { ...query, ...(waiting ? { status: 'running' as const } : {}) }
  const filters = equalityFilters.flatMap(([key, column, letter]) => (stored[key] === undefined ? [] : [{ column, letter, value: stored[key] }]))
  const viaText = text !== undefined || filters.length >= 2
  const seqColumn = viaText ? 't.rowid' : 'c.seq'
  const where: string[] = []
  const params: (string | number)[] = []
  const add = (condition: string, value: string | number) => {
    where.push(condition)
    params.push(value)
  }
  if (viaText)
    add(
      't.action_calls_text match ?',
      [text ?? '', ...filters.map((f) => `facets:"${f.letter}${Buffer.from(f.value, 'utf8').toString('hex')}"`)].join(' ').trim()
    )
  if (range?.lo !== undefined) add(`${seqColumn} >= ?`, range.lo)
  if (range?.hi !== undefined) add(`${seqColumn} <= ?`, range.hi)
  for (const filter of filters) add(`c.${filter.column} = ?`, filter.value)
  if (waiting) where.push(`c.waiting_since is ${waiting === 'running' ? '' : 'not '}null`)
  if (since !== undefined) add('c.started_at >= ?', since)
  if (until !== undefined) add('c.started_at <= ?', until)
  const from = viaText ? 'action_calls_text t cross join action_calls c on c.seq = t.rowid' : 'action_calls c'
  return { from, where, params, seqColumn }
}

/**
 * The seq range holding every call started in [since, until]. Calls not marked
 * `started_out_of_order` start no earlier than any call before them, so theirs is the range
 * between two index probes; the marked ones (the clock went back) widen it from their own index.
 * The caller still checks the time exactly; this only bounds what is read.
 */
export function seqRangeOf(db: Database, since: string | undefined, until: string | undefined): { lo?: number; hi?: number } | 'empty' | undefined {
  if (since === undefined && until === undefined) return undefined
  if (since !== undefined && until !== undefined && since > until) return 'empty'
  const probe = (sql: string, value: string) => db.prepare(sql).pluck().get(value) as number | undefined
  const lo =
    since === undefined
      ? undefined
      : probe('select seq from action_calls where started_out_of_order = 0 and started_at >= ? order by started_at, seq limit 1', since)
  const hi =
    until === undefined
      ? undefined
      : probe('select seq from action_calls where started_out_of_order = 0 and started_at <= ? order by started_at desc, seq desc limit 1', until)
  const inOrder = (since === undefined || lo !== undefined) && (until === undefined || hi !== undefined) && (lo === undefined || hi === undefined || lo <= hi)
  const late = db
    .prepare('select min(seq) as lo, max(seq) as hi from action_calls where started_out_of_order = 1 and started_at >= ? and started_at <= ?')
    .get(since ?? '', until ?? '\uffff') as { lo: number | null; hi: number | null }
  if (!inOrder && late.lo === null) return 'empty'
  if (!inOrder) return { lo: late.lo!, hi: late.hi! }
  if (late.lo === null) return { lo, hi }
  return { lo: lo === undefined ? undefined : Math.min(lo, late.lo), hi: hi === undefined ? undefined : Math.max(hi, late.hi!) }
}

/**
 * The FTS5 query for what the operator typed: each whitespace-separated word becomes a quoted
 * phrase (no FTS syntax from the input is ever interpreted: `src/app.py` is the phrase
 * `src app py`), matched as whole words, case and accents ignored; a word ending in `*` (at least
 * two letters before it) matches as a prefix. Words must all match. `null` when nothing
 * searchable was typed (only punctuation): no row matches. Whole words by default because a
 * short prefix (`s*`) merges the doclists of every word it begins, which no page can bound.
 */
export function ftsQuery(text: string): string | null {
  const words = text
    .split(/\s+/)
    .filter((word) => /[\p{L}\p{N}]/u.test(word))
    .slice(0, 16)
  if (words.length === 0) return null
  return words
    .map((word) => {
      const prefix = /[\p{L}\p{N}]{2}\*+$/u.test(word)
      const phrase = prefix ? word.replace(/\*+$/, '') : word
      return `"${phrase.replaceAll('"', '""')}"${prefix ? '*' : ''}`
    })
    .join(' ')
}

/** A stored row as the History table lists it. */
export function toHistoryRow(row: ActionCallRecord & { waiting_since?: string | null }): HistoryRow {
  const approval = parseJson(row.approval_json, null) as HistoryRow['approval']
  return {
    seq: row.seq as number,
    id: row.id as string,
    agentId: row.agent_id as string | null,
    sessionId: row.session_id as string | null,
    tool: row.tool as string,
    status: (row.status === 'running' && row.waiting_since != null ? 'waiting_approval' : row.status) as HistoryStatus,
    providerId: row.provider_id as string | null,
    exitCode: row.exit_code as number | null,
    durationMs: row.duration_ms as number | null,
    waitMs: typeof approval?.waitedMs === 'number' ? approval.waitedMs : null,
    waitingSince: (row.waiting_since ?? null) as string | null,
    startedAt: row.started_at as string,
    finishedAt: row.finished_at as string | null,
    error: row.error_code === null ? null : { code: row.error_code as string, message: (row.error_message ?? '') as string },
    inputSummary: parseJson(row.input_summary_json, null),
    approval
  }
}

/** A stored row with everything recorded; output kept in a log file has `text: null` (the caller reads it). */
export function toHistoryDetail(row: ActionCallRecord): HistoryDetail {
  const stream = (name: 'stdout' | 'stderr') => ({
    text: row[name] as string | null,
    truncated: row[`${name}_truncated`] === 1,
    logFile: row[`${name}_log`] as string | null,
    sha256: row[`${name}_sha256`] as string | null
  })
  return {
    ...toHistoryRow(row),
    policy: parseJson(row.policy_json, null),
    approval: parseJson(row.approval_json, null),
    provider: parseJson(row.provider_json, null),
    stdout: stream('stdout'),
    stderr: stream('stderr'),
    artifacts: parseJson(row.artifacts_json, []),
    lineage: parseJson(row.lineage_json, []),
    result: parseJson(row.result_json, null),
    chain: row.chain_seq === null ? null : { chainSeq: row.chain_seq as number, prevHash: String(row.prev_hash), hash: String(row.hash) }
  }
}

/** Parses a JSON column; a value that is not JSON (hand-edited) is shown as its text rather than failing the page. */
function parseJson<T>(value: string | number | null, fallback: T): T {
  if (value === null) return fallback
  try {
    return JSON.parse(String(value)) as T
  } catch {
    return String(value) as T
  }
}
