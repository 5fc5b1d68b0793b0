import { AirlockError } from '@shared/errors'
import type { Database, Statement } from 'better-sqlite3'
import { z } from 'zod'
import { historyStatuses, type HistoryDetail, type HistoryPage, type HistoryRow, type HistoryUsage } from '@shared/ipc/history'
import type { ActionCallEnd, ActionCallStart } from '../core'
import {
  appendToChain,
  genesisHash,
  logFileNamePattern,
  rowHash,
  readLogFile,
  verifyChain,
  type ActionCallRecord,
  type ChainVerification
} from './action-call-chain'
import { countCalls, listCalls, toHistoryDetail, toHistoryRow, type HistoryFilters, type HistoryQuery } from './action-call-query'
import { usageOf } from './action-call-usage'
import { appendLedger, callBeginDigest, callStartColumns, runningDefaults, type LedgerHead } from './audit-ledger'
import { AuditRecord, type AuditVerification } from './audit-record'

/** Stable codes of history failures. */
export type HistoryErrorCode = 'history.invalid_record' | 'history.duplicate_call' | 'history.not_found' | 'history.not_running' | 'history.invalid_query'

/** A history record that cannot be written or a call that cannot be found; `code` is stable. */
export class HistoryError extends AirlockError<HistoryErrorCode> {}

/** One output stream as stored: inline text, or the log file under `<home>/logs` it went to and its sha256. */
export type StoredOutput = { text: string } | { logFile: string; sha256: string }

/** The end of a call as the repository stores it: the port's end, with outputs already placed, and what search reads of them (`outputSearchText`). */
export type FinishedCall = Omit<ActionCallEnd, 'stdout' | 'stderr'> & { stdout?: StoredOutput; stderr?: StoredOutput; outputText?: string }

const idText = z.string().min(1).max(200)
/** Times are stored in one form (UTC, milliseconds), so that they compare as text. */
const timestamp = z.iso.datetime({ offset: true }).transform((value) => new Date(value).toISOString())
const startSchema = z.object({ callId: idText, agentId: idText, sessionId: idText, tool: idText, inputSummary: z.unknown(), startedAt: timestamp })
const outputSchema = z.union([
  z.object({ text: z.string() }).strict(),
  z.object({ logFile: z.string().regex(logFileNamePattern), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).strict()
])
const endSchema = z.object({
  callId: idText,
  status: z.enum(historyStatuses).exclude(['running']),
  finishedAt: timestamp,
  durationMs: z.number().nonnegative(),
  exitCode: z.number().int().optional(),
  stdout: outputSchema.optional(),
  stderr: outputSchema.optional(),
  artifacts: z.array(z.unknown()),
  lineage: z.array(z.unknown()),
  error: z.object({ code: z.string(), message: z.string() }).optional()
})

const interruptedMessage = 'Airlock stopped before this call finished; its outcome is unknown.'

/**
 * The execution history (SPEC §10) over `action_calls`: a row is inserted `running` when a call
 * begins and, when it ends, filled and appended to the hash chain in the same transaction (see
 * action-call-chain.ts). Rows are never deleted or rewritten after they are chained. Both steps
 * also append to the audit ledger in their transaction (audit-ledger.ts), which covers a row while
 * it runs too.
 */
export class ActionCallRepository {
  private readonly statements = new Map<string, Statement>()

  constructor(
    private readonly db: Database,
    /** `<home>/logs`: where outputs over 64 KiB are kept (verify re-hashes them there). */
    readonly logsDir: string,
    /** The home's whole record (with its anchor file) for `audit`; default: this database's, anchored in its settings only. */
    private readonly record?: AuditRecord
  ) {}

  /** Records the start of a call as a `running` row (not chained yet) and its `call.begin` ledger entry, in one transaction. */
  begin(start: ActionCallStart): void {
    const valid = parse(startSchema, start, 'start')
    try {
      this.db
        .transaction(() => {
          // `started_out_of_order`: this call started before one recorded earlier (the clock went back); see listCalls.
          const row = this.statement(
            `insert into action_calls (id, agent_id, session_id, tool, status, input_summary_json, started_at, started_out_of_order)
               values (@callId, @agentId, @sessionId, @tool, 'running', @input, @startedAt,
                 coalesce((select max(started_at) from action_calls where started_out_of_order = 0) > @startedAt, 0))
               returning ${callStartColumns.join(', ')}`
          ).get({
            callId: valid.callId,
            agentId: valid.agentId,
            sessionId: valid.sessionId,
            tool: valid.tool,
            input: JSON.stringify(start.inputSummary ?? null),
            startedAt: valid.startedAt
          }) as Record<string, unknown>
          appendLedger(this.db, 'call.begin', String(row.seq), callBeginDigest(row))
        })
        .immediate()
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new HistoryError('history.duplicate_call', `A call with id ${valid.callId} is already recorded.`, { callId: valid.callId })
      }
      throw error
    }
  }

  /** Fills the row of a running call with its end, chains it and appends its `call.end` ledger entry, in one transaction; returns the row. */
  finish(end: FinishedCall): HistoryRow {
    const { finishedAt } = parse(endSchema, end, 'end')
    return this.db
      .transaction(() => {
        const running = this.runningRow(end.callId)
        const provider = end.provider ?? null
        const output = (stream?: StoredOutput) => ({
          text: stream && 'text' in stream ? stream.text : null,
          log: stream && 'logFile' in stream ? stream.logFile : null,
          sha256: stream && 'logFile' in stream ? stream.sha256 : null
        })
        const stdout = output(end.stdout)
        const stderr = output(end.stderr)
        const head = this.statement('select chain_seq, hash from action_calls where chain_seq is not null order by chain_seq desc limit 1').get() as
          | { chain_seq: number; hash: string }
          | undefined
        // The whole end, chain link and hash are written in one update: the row as it will be
        // stored is built here (the same values SQLite keeps) and hashed before the write.
        const ended: ActionCallRecord = {
          ...running,
          status: end.status,
          policy_json: json(end.policy),
          approval_json: json(end.approval),
          provider_id: typeof provider?.providerId === 'string' ? provider.providerId : null,
          provider_json: json(provider ?? undefined),
          exit_code: end.exitCode ?? null,
          stdout: stdout.text,
          stdout_log: stdout.log,
          stdout_sha256: stdout.sha256,
          stdout_truncated: end.stdoutTruncated === true ? 1 : 0,
          stderr: stderr.text,
          stderr_log: stderr.log,
          stderr_sha256: stderr.sha256,
          stderr_truncated: end.stderrTruncated === true ? 1 : 0,
          artifacts_json: JSON.stringify(end.artifacts),
          lineage_json: JSON.stringify(end.lineage),
          error_code: end.error?.code ?? null,
          error_message: end.error?.message ?? null,
          result_json: json(end.resultSummary),
          finished_at: finishedAt,
          duration_ms: Math.round(end.durationMs),
          chain_seq: (head?.chain_seq ?? 0) + 1,
          prev_hash: head?.hash ?? genesisHash
        }
        ended.hash = rowHash(ended)
        this.statement(
          `update action_calls set status = @status, policy_json = @policy_json, approval_json = @approval_json, provider_id = @provider_id,
             provider_json = @provider_json, exit_code = @exit_code, stdout = @stdout, stdout_log = @stdout_log, stdout_sha256 = @stdout_sha256,
             stdout_truncated = @stdout_truncated, stderr = @stderr, stderr_log = @stderr_log, stderr_sha256 = @stderr_sha256,
             stderr_truncated = @stderr_truncated, artifacts_json = @artifacts_json, lineage_json = @lineage_json, error_code = @error_code,
             error_message = @error_message, result_json = @result_json, finished_at = @finished_at, duration_ms = @duration_ms,
             chain_seq = @chain_seq, prev_hash = @prev_hash, hash = @hash, waiting_since = null, output_text = @output_text
           where seq = @seq`
        ).run({ ...ended, output_text: end.outputText ?? null })
        appendLedger(this.db, 'call.end', String(ended.seq), ended.hash)
        return toHistoryRow(ended)
      })
      .immediate()
  }

  /** A running call began waiting for the operator (`since`, ISO) or stopped waiting (`null`); false when it is not running. */
  waiting(callId: string, since: string | null): boolean {
    return this.statement("update action_calls set waiting_since = ? where id = ? and status = 'running'").run(since, callId).changes === 1
  }

  /**
   * Start-up recovery (SPEC §10): every row still `running` was left by a process that stopped;
   * each becomes `interrupted` and joins the chain. Returns those rows. Call it before any call
   * runs (a second console on the same home would interrupt the first one's calls).
   */
  interruptRunning(now = new Date()): HistoryRow[] {
    return this.db
      .transaction(() => {
        const running = this.db.prepare("select seq from action_calls where status = 'running' order by seq").pluck().all() as number[]
        // Every end fact is reset, not only the ones set here: the outcome is unknown, and whatever a
        // running row holds beyond its start was not written by Airlock (the ledger's begin shows it).
        const ends = Object.keys(runningDefaults).filter(
          (column) => !['status', 'finished_at', 'error_code', 'error_message', 'chain_seq', 'prev_hash'].includes(column)
        )
        const update = this.db.prepare(
          `update action_calls set ${ends.map((column) => `${column} = @${column}`).join(', ')}, status = 'interrupted', waiting_since = null, finished_at = @finishedAt, error_code = 'interrupted', error_message = @message where seq = @seq`
        )
        return running.map((seq) => {
          update.run({
            ...Object.fromEntries(ends.map((column) => [column, runningDefaults[column as keyof typeof runningDefaults]])),
            finishedAt: now.toISOString(),
            message: interruptedMessage,
            seq
          })
          appendLedger(this.db, 'call.end', String(seq), appendToChain(this.db, seq))
          return this.row(seq)
        })
      })
      .immediate()
  }

  /** One page of history, newest first; filters and cursor as in the History view. */
  list(query: HistoryQuery = {}): HistoryPage {
    return listCalls(this.db, query)
  }

  /** How many calls match the filters (no paging). */
  count(filters: HistoryFilters = {}): number {
    return countCalls(this.db, filters)
  }

  /** Calls per hour by status and duration percentiles since `since` (see `usageOf`). */
  usage(query: { agentId?: string; since: Date; now: Date }): HistoryUsage {
    return usageOf(this.db, query)
  }

  /** Everything stored of one call (output in a log file has `text: null`), or undefined. */
  get(id: string): HistoryDetail | undefined {
    const row = this.db.prepare('select * from action_calls where id = ?').get(id) as ActionCallRecord | undefined
    return row ? toHistoryDetail(row) : undefined
  }

  /** The bytes of a log file a row references (`stdout_log`/`stderr_log`); throws when it cannot be read. */
  readLog(name: string): Buffer {
    const chunks: Buffer[] = []
    readLogFile(this.logsDir, name, (chunk) => chunks.push(chunk))
    return Buffer.concat(chunks)
  }

  /** Walks the hash chain and re-hashes every row and log file (see `verifyChain`). */
  verify(): ChainVerification {
    return verifyChain(this.db, this.logsDir)
  }

  /** The whole tamper-evident record: the chain, the audit ledger and its anchor; anchors the head when intact (see `AuditRecord`). */
  audit(options: { kept?: LedgerHead } = {}): AuditVerification {
    return (this.record ?? new AuditRecord(this.db, this.logsDir)).verify(options)
  }

  private runningRow(callId: string): ActionCallRecord {
    const row = this.statement('select * from action_calls where id = ?').get(callId) as (ActionCallRecord & { facets?: unknown }) | undefined
    if (!row) throw new HistoryError('history.not_found', `No call ${callId} was begun in history.`, { callId })
    if (row.status !== 'running')
      throw new HistoryError('history.not_running', `Call ${callId} already ended (${row.status}); its record is not rewritten.`, { callId })
    const { facets: _derived, ...stored } = row
    return stored
  }

  /** A prepared statement, compiled once per repository (a call's begin and end are on the dispatcher's path). */
  private statement(sql: string): Statement {
    let statement = this.statements.get(sql)
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)))
    return statement
  }

  private row(seq: number): HistoryRow {
    return toHistoryRow(this.db.prepare('select * from action_calls where seq = ?').get(seq) as ActionCallRecord)
  }
}

function json(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value)
}

function parse<S extends z.ZodType>(schema: S, value: unknown, root: string): z.output<S> {
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  const issues = parsed.error.issues.map((issue) => `${[root, ...issue.path.map(String)].join('.')}: ${issue.message}`)
  throw new HistoryError('history.invalid_record', `Invalid history record: ${issues.join('; ')}.`)
}
