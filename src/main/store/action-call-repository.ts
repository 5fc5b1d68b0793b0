import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import { historyStatuses, type HistoryDetail, type HistoryPage, type HistoryRow } from '@shared/ipc/history'
import type { ActionCallEnd, ActionCallStart } from '../core'
import { appendToChain, logFileNamePattern, readLogFile, verifyChain, type ActionCallRecord, type ChainVerification } from './action-call-chain'
import { listCalls, toHistoryDetail, toHistoryRow, type HistoryQuery } from './action-call-query'

/** Stable codes of history failures. */
export type HistoryErrorCode = 'history_invalid_record' | 'history_duplicate_call' | 'history_not_found' | 'history_not_running'

/** A history record that cannot be written or a call that cannot be found; `code` is stable. */
export class HistoryError extends Error {
  override readonly name = 'HistoryError'
  constructor(
    readonly code: HistoryErrorCode,
    message: string,
    readonly payload: Record<string, unknown> = {}
  ) {
    super(message)
  }
}

/** One output stream as stored: inline text, or the log file under `<home>/logs` it went to and its sha256. */
export type StoredOutput = { text: string } | { logFile: string; sha256: string }

/** The end of a call as the repository stores it: the port's end, with outputs already placed. */
export type FinishedCall = Omit<ActionCallEnd, 'stdout' | 'stderr'> & { stdout?: StoredOutput; stderr?: StoredOutput }

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
 * action-call-chain.ts). Rows are never deleted or rewritten after they are chained.
 */
export class ActionCallRepository {
  constructor(
    private readonly db: Database,
    /** `<home>/logs`: where outputs over 64 KiB are kept (verify re-hashes them there). */
    readonly logsDir: string
  ) {}

  /** Records the start of a call as a `running` row (not chained yet). */
  begin(start: ActionCallStart): void {
    const valid = parse(startSchema, start, 'start')
    try {
      // `started_out_of_order`: this call started before one recorded earlier (the clock went back); see listCalls.
      this.db
        .prepare(
          `insert into action_calls (id, agent_id, session_id, tool, status, input_summary_json, started_at, started_out_of_order)
           values (@callId, @agentId, @sessionId, @tool, 'running', @input, @startedAt,
             coalesce((select max(started_at) from action_calls where started_out_of_order = 0) > @startedAt, 0))`
        )
        .run({ callId: valid.callId, agentId: valid.agentId, sessionId: valid.sessionId, tool: valid.tool, input: JSON.stringify(start.inputSummary ?? null), startedAt: valid.startedAt })
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new HistoryError('history_duplicate_call', `A call with id ${valid.callId} is already recorded.`, { callId: valid.callId })
      }
      throw error
    }
  }

  /** Fills the row of a running call with its end and chains it, in one transaction; returns the row. */
  finish(end: FinishedCall): HistoryRow {
    const { finishedAt } = parse(endSchema, end, 'end')
    return this.db
      .transaction(() => {
        const seq = this.runningSeq(end.callId)
        const provider = end.provider ?? null
        const output = (stream?: StoredOutput) => ({
          text: stream && 'text' in stream ? stream.text : null,
          log: stream && 'logFile' in stream ? stream.logFile : null,
          sha256: stream && 'logFile' in stream ? stream.sha256 : null
        })
        const stdout = output(end.stdout)
        const stderr = output(end.stderr)
        this.db
          .prepare(
            `update action_calls set status = @status, policy_json = @policy, approval_json = @approval, provider_id = @providerId,
               provider_json = @provider, exit_code = @exitCode, stdout = @stdout, stdout_log = @stdoutLog, stdout_sha256 = @stdoutSha256,
               stdout_truncated = @stdoutTruncated, stderr = @stderr, stderr_log = @stderrLog, stderr_sha256 = @stderrSha256,
               stderr_truncated = @stderrTruncated, artifacts_json = @artifacts, lineage_json = @lineage, error_code = @errorCode,
               error_message = @errorMessage, result_json = @result, finished_at = @finishedAt, duration_ms = @durationMs
             where seq = @seq`
          )
          .run({
            seq,
            status: end.status,
            policy: json(end.policy),
            approval: json(end.approval),
            providerId: typeof provider?.providerId === 'string' ? provider.providerId : null,
            provider: json(provider ?? undefined),
            exitCode: end.exitCode ?? null,
            stdout: stdout.text,
            stdoutLog: stdout.log,
            stdoutSha256: stdout.sha256,
            stdoutTruncated: end.stdoutTruncated === true ? 1 : 0,
            stderr: stderr.text,
            stderrLog: stderr.log,
            stderrSha256: stderr.sha256,
            stderrTruncated: end.stderrTruncated === true ? 1 : 0,
            artifacts: JSON.stringify(end.artifacts),
            lineage: JSON.stringify(end.lineage),
            errorCode: end.error?.code ?? null,
            errorMessage: end.error?.message ?? null,
            result: json(end.resultSummary),
            finishedAt,
            durationMs: Math.round(end.durationMs)
          })
        appendToChain(this.db, seq)
        return this.row(seq)
      })
      .immediate()
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
        const update = this.db.prepare("update action_calls set status = 'interrupted', finished_at = ?, error_code = 'interrupted', error_message = ? where seq = ?")
        return running.map((seq) => {
          update.run(now.toISOString(), interruptedMessage, seq)
          appendToChain(this.db, seq)
          return this.row(seq)
        })
      })
      .immediate()
  }

  /** One page of history, newest first; filters and cursor as in the History view. */
  list(query: HistoryQuery = {}): HistoryPage {
    return listCalls(this.db, query)
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

  private runningSeq(callId: string): number {
    const row = this.db.prepare('select seq, status from action_calls where id = ?').get(callId) as { seq: number; status: string } | undefined
    if (!row) throw new HistoryError('history_not_found', `No call ${callId} was begun in history.`, { callId })
    if (row.status !== 'running') throw new HistoryError('history_not_running', `Call ${callId} already ended (${row.status}); its record is not rewritten.`, { callId })
    return row.seq
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
  throw new HistoryError('history_invalid_record', `Invalid history record: ${issues.join('; ')}.`)
}
