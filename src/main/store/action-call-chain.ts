import { createHash } from 'node:crypto'
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { join } from 'node:path'
import type { Database } from 'better-sqlite3'

/**
 * The hash chain of the execution history (SPEC §10). A row joins the chain once, when it ends:
 * `chain_seq` = the next position, `prev_hash` = the `hash` of the row at the position before
 * (`genesisHash` for the first), and `hash` = sha256 of the canonical JSON (sorted keys) of every
 * column in `hashedColumns` exactly as stored. Log files are covered through their sha256 column,
 * and `verifyChain` re-hashes the files themselves.
 *
 * What it proves: a row edited, inserted or deleted with plain SQL, or a log file changed, is found
 * (the first such row is named). What it cannot prove on its own: someone able to write the database
 * can recompute every hash after their edit. Each row's end is also an entry of the audit ledger
 * (audit-ledger.ts), whose head is anchored outside the database (audit-anchor.ts).
 */

/** The `prev_hash` of the first chained row. */
export const genesisHash = '0'.repeat(64)

/**
 * The columns a row's hash covers (every recorded column but `hash` itself and the generated
 * `facets`, which is derived from hashed ones). Fixed, not `select *`:
 * a later migration that adds a column must extend the encoding only for rows written after it, or
 * every older hash would change.
 */
export const hashedColumns = [
  'seq',
  'id',
  'agent_id',
  'session_id',
  'tool',
  'status',
  'input_summary_json',
  'policy_json',
  'approval_json',
  'provider_id',
  'provider_json',
  'exit_code',
  'stdout',
  'stdout_log',
  'stdout_sha256',
  'stdout_truncated',
  'stderr',
  'stderr_log',
  'stderr_sha256',
  'stderr_truncated',
  'artifacts_json',
  'lineage_json',
  'error_code',
  'error_message',
  'result_json',
  'started_at',
  'started_out_of_order',
  'finished_at',
  'duration_ms',
  'chain_seq',
  'prev_hash'
] as const

/** A stored `action_calls` row, column by column (SQLite values). */
export type ActionCallRecord = Record<(typeof hashedColumns)[number] | 'hash', string | number | null>

const sortedColumns = [...hashedColumns].sort()
const keyPrefixes = sortedColumns.map((column, index) => `${index === 0 ? '{' : ','}${JSON.stringify(column)}:`)

/**
 * The hash of a stored row: sha256 (hex) of its hashed columns as JSON with sorted keys
 * (`{"agent_id":…,"approval_json":…,…}`, values exactly as stored). The encoding is written out
 * here, not borrowed, so that it stays exactly what stored hashes used.
 */
export function rowHash(row: Record<string, unknown>): string {
  return hashOfSortedValues(sortedColumns.map((column) => row[column]))
}

/** The hashed columns in the order their values are encoded (sorted by name). */
export const sortedHashedColumns: readonly (typeof hashedColumns)[number][] = sortedColumns

/** `rowHash` for the values of the hashed columns in sorted-name order (what `verifyChain` reads). */
export function hashOfSortedValues(values: readonly unknown[]): string {
  let material = ''
  for (let index = 0; index < keyPrefixes.length; index++) material += keyPrefixes[index] + JSON.stringify(values[index] ?? null)
  return createHash('sha256').update(`${material}}`).digest('hex')
}

/** Names of log files under `<home>/logs`: `<call id>.stdout|.stderr`, never a path. */
export const logFileNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.(?:stdout|stderr)$/

/**
 * Appends the row `seq` to the chain. Call inside the transaction that finished the row, so the
 * chain head cannot move in between; returns the row's new hash.
 */
export function appendToChain(db: Database, seq: number): string {
  const head = db.prepare('select chain_seq, hash from action_calls where chain_seq is not null order by chain_seq desc limit 1').get() as
    | { chain_seq: number; hash: string }
    | undefined
  const chainSeq = (head?.chain_seq ?? 0) + 1
  const prevHash = head?.hash ?? genesisHash
  db.prepare('update action_calls set chain_seq = ?, prev_hash = ? where seq = ?').run(chainSeq, prevHash, seq)
  const row = db.prepare('select * from action_calls where seq = ?').get(seq) as ActionCallRecord
  const hash = rowHash(row)
  db.prepare('update action_calls set hash = ? where seq = ?').run(hash, seq)
  return hash
}

/** The sha256 (hex) of a log file under `logsDir`; throws when the name is not a log name or the file cannot be read. */
export function logFileHash(logsDir: string, name: string): string {
  const hash = createHash('sha256')
  readLogFile(logsDir, name, (chunk) => hash.update(chunk))
  return hash.digest('hex')
}

/**
 * Reads a log file under `logsDir` chunk by chunk: only a log file name (never a path from a
 * row someone edited), never through a symlink, only a regular file.
 */
export function readLogFile(logsDir: string, name: string, onChunk: (chunk: Buffer) => void): void {
  if (!logFileNamePattern.test(name)) throw new Error(`${JSON.stringify(name)} is not a log file name`)
  const fd = openSync(join(logsDir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`logs/${name} is not a regular file`)
    const buffer = Buffer.allocUnsafe(1 << 16)
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) onChunk(Buffer.from(buffer.subarray(0, read)))
  } finally {
    closeSync(fd)
  }
}

/** What a walk of the chain found: `rows` chained rows verified, and the first broken row if any. */
export type ChainVerification =
  | { ok: true; rows: number; head: string }
  | { ok: false; rows: number; brokenAt: { seq: number; id: string | null }; reason: string }

/**
 * Walks the chain in order and recomputes every hash and log file digest. Then checks that no
 * finished row sits outside the chain (inserted or edited outside Airlock) and that no row was
 * cut from the end (SQLite's autoincrement counter remembers the highest seq ever issued).
 */
export function verifyChain(db: Database, logsDir: string): ChainVerification {
  let rows = 0
  let previous = genesisHash
  const broken = (row: { seq: number; id: string | null }, reason: string): ChainVerification => ({
    ok: false,
    rows,
    brokenAt: { seq: row.seq, id: row.id },
    reason
  })
  // Raw arrays of exactly the hashed columns (sorted) and the hash: the walk reads a million rows.
  const at = (name: (typeof hashedColumns)[number]) => sortedColumns.indexOf(name)
  const [seqAt, idAt, chainAt, prevAt] = [at('seq'), at('id'), at('chain_seq'), at('prev_hash')]
  const logsAt = (['stdout', 'stderr'] as const).map((stream) => ({ stream, name: at(`${stream}_log`), sha256: at(`${stream}_sha256`) }))
  const walk = db.prepare(`select ${sortedColumns.join(', ')}, hash from action_calls where chain_seq is not null order by chain_seq`).raw()
  for (const values of walk.iterate() as Iterable<(string | number | null)[]>) {
    const row = { seq: values[seqAt] as number, id: values[idAt] as string }
    const hash = values[sortedColumns.length]
    if (values[chainAt] !== rows + 1)
      return broken(row, `it is at chain position ${values[chainAt]} but follows position ${rows}: a chained row before it was deleted`)
    if (values[prevAt] !== previous) return broken(row, 'its prev_hash is not the hash of the row before it in the chain: that row was changed or deleted')
    if (hashOfSortedValues(values) !== hash) return broken(row, 'its contents do not match its hash: the row was changed')
    for (const log of logsAt) {
      const name = values[log.name]
      if (name === null) continue
      let actual: string
      try {
        actual = logFileHash(logsDir, String(name))
      } catch (error) {
        return broken(row, `its ${log.stream} log file logs/${name} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
      }
      if (actual !== values[log.sha256]) return broken(row, `its ${log.stream} log file logs/${name} was changed`)
    }
    previous = hash as string
    rows += 1
  }
  const outside = db.prepare("select seq, id from action_calls where chain_seq is null and status != 'running' order by seq limit 1").get() as
    | { seq: number; id: string }
    | undefined
  if (outside) return broken(outside, 'it is finished but not in the chain: it was inserted or edited outside Airlock')
  const issued = (db.prepare("select seq from sqlite_sequence where name = 'action_calls'").pluck().get() as number | undefined) ?? 0
  const highest = (db.prepare('select max(seq) from action_calls').pluck().get() as number | null) ?? 0
  if (issued > highest) return broken({ seq: highest + 1, id: null }, `rows from seq ${highest + 1} to ${issued} were deleted from the end of the history`)
  return { ok: true, rows, head: previous }
}
