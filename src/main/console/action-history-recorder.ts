import { createHash } from 'node:crypto'
import { closeSync, constants, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { HistoryRow, HistoryStatus } from '@shared/ipc/history'
import { sandboxIdentity, type ActionCallEnd, type ActionCallStart, type ActionHistory, type SandboxIdentity } from '../core'
import { outputSearchText, type ActionCallRepository, type StoredOutput } from '../store'
import { appendExecHistoryLine } from './exec-history-file'

/** Outputs larger than this (UTF-8 bytes) go to `<home>/logs/<call id>.stdout|.stderr`; smaller ones stay in the row. */
export const inlineOutputLimitBytes = 64 * 1024

/** What the recorder is built from. */
export type ActionHistoryRecorderOptions = {
  repository: ActionCallRepository
  /** The real path of an agent's workspace, or undefined when it has none (a removed agent). */
  workspaceOf: (agentId: string) => string | undefined
  /** Called after a call began, finished or was interrupted (the host forwards it as `history.changed`). */
  onChange?: (change: { id: string; status: HistoryStatus }) => void
  /** Told what went wrong on the side (a `.exec_history` left alone, a log file not written); never fails a call. */
  onDiagnostic?: (message: string) => void
  /** Who owns a new `.exec_history` (default: the host's sandbox identity). */
  identity?: SandboxIdentity
}

/** Log file names are `<call id>.<stream>`: a call id that is not a plain name never reaches the file system. */
const callIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/

/**
 * The console's implementation of the core's `ActionHistory` port (SPEC §10): rows in the store
 * (hash-chained when they end), outputs over 64 KiB in `<home>/logs`, and one JSON line per ended
 * call in the agent's `<workspace>/.exec_history` so the agent can see its own record.
 */
export class ActionHistoryRecorder implements ActionHistory {
  private readonly identity: SandboxIdentity

  constructor(private readonly options: ActionHistoryRecorderOptions) {
    this.identity = options.identity ?? sandboxIdentity()
  }

  /** Records a `running` row; throws when it cannot (the dispatcher then runs nothing). */
  begin(start: ActionCallStart): void {
    this.options.repository.begin(start)
    this.changed(start.callId, 'running')
  }

  /** Places large outputs in log files, ends and chains the row, then appends the workspace line. */
  finish(end: ActionCallEnd): void {
    const { stdout, stderr, ...rest } = end
    const placedStdout = this.place(end.callId, 'stdout', stdout)
    const placedStderr = this.place(end.callId, 'stderr', stderr)
    const outputText = outputSearchText(stdout, stderr)
    const row = this.options.repository.finish({
      ...rest,
      ...(placedStdout ? { stdout: placedStdout } : {}),
      ...(placedStderr ? { stderr: placedStderr } : {}),
      ...(outputText ? { outputText } : {})
    })
    this.ended(row)
  }

  /** A running call began or stopped waiting for the operator: its row shows `waiting_approval` meanwhile. */
  waiting(callId: string, since: string | null): void {
    if (this.options.repository.waiting(callId, since)) this.changed(callId, since === null ? 'running' : 'waiting_approval')
  }

  /**
   * Start-up recovery: calls a stopped process left `running` become `interrupted` (and chained);
   * each gets its workspace line and a change notice. Returns them.
   */
  recoverInterrupted(): HistoryRow[] {
    const rows = this.options.repository.interruptRunning()
    for (const row of rows) this.ended(row)
    return rows
  }

  private ended(row: HistoryRow): void {
    const workspace = row.agentId === null ? undefined : this.options.workspaceOf(row.agentId)
    if (workspace !== undefined) {
      const line = {
        callId: row.id,
        tool: row.tool,
        status: row.status,
        startedAt: row.startedAt,
        finishedAt: row.finishedAt,
        durationMs: row.durationMs,
        exitCode: row.exitCode,
        errorCode: row.error?.code ?? null
      }
      const appended = appendExecHistoryLine(workspace, line, this.identity)
      if (!appended.appended) this.diagnose(`history: no .exec_history line for call ${row.id}: ${appended.reason}`)
    }
    this.changed(row.id, row.status)
  }

  /** Inline text up to the limit; above it, a new log file and its digest. A log that cannot be written keeps the text inline. */
  private place(callId: string, stream: 'stdout' | 'stderr', text: string | undefined): StoredOutput | undefined {
    if (text === undefined) return undefined
    const bytes = Buffer.from(text, 'utf8')
    if (bytes.length <= inlineOutputLimitBytes || !callIdPattern.test(callId)) return { text }
    const logFile = `${callId}.${stream}`
    try {
      writeLogFile(this.options.repository.logsDir, logFile, bytes)
    } catch (error) {
      this.diagnose(
        `history: the ${stream} of call ${callId} stays in the database: logs/${logFile} could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`
      )
      return { text }
    }
    return { logFile, sha256: createHash('sha256').update(bytes).digest('hex') }
  }

  private changed(id: string, status: HistoryStatus): void {
    try {
      this.options.onChange?.({ id, status })
    } catch (error) {
      this.diagnose(`history: a change listener failed for call ${id}: ${(error as Error).message}`)
    }
  }

  private diagnose(message: string): void {
    try {
      this.options.onDiagnostic?.(message)
    } catch {
      // A diagnostic sink that throws must not fail the call it reports on.
    }
  }
}

/**
 * Writes a new owner-only log file. `logs/` belongs to Airlock alone (0700), so a file already
 * there can only be left from an earlier database on this home: it is replaced, never appended to.
 */
function writeLogFile(logsDir: string, name: string, bytes: Buffer): void {
  mkdirSync(logsDir, { recursive: true, mode: 0o700 })
  const path = join(logsDir, name)
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
  let fd: number
  try {
    fd = openSync(path, flags, 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    unlinkSync(path)
    fd = openSync(path, flags, 0o600)
  }
  try {
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written)
  } finally {
    closeSync(fd)
  }
}
