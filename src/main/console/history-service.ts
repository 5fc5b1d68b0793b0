import { createHash } from 'node:crypto'
import type { HistoryDetail, HistoryOutput, HistoryPage, HistoryUsage, HistoryVerification } from '@shared/ipc/history'
export { historyQueryMaxLimit, type AuditVerification } from '../store'
import {
  HistoryError,
  usageMaxWindowMs,
  type ActionCallRepository,
  type AuditVerification,
  type HistoryFilters,
  type LedgerHead,
  type HistoryQuery
} from '../store'

/**
 * The execution history as the console and the CLI read it (SPEC §10, §11): pages of calls,
 * one call in full (outputs kept in log files are read back and checked against the sha256 the
 * row recorded), and the audit of the hash chain.
 */
export class HistoryService {
  constructor(
    private readonly repository: ActionCallRepository,
    private readonly now: () => Date = () => new Date()
  ) {}

  /** One page of history, newest first. */
  list(query: HistoryQuery = {}): HistoryPage {
    return this.repository.list(query)
  }

  /** How many calls match the filters (the History view's count line). */
  count(filters: HistoryFilters = {}): { count: number } {
    return { count: this.repository.count(filters) }
  }

  /**
   * Calls per hour by status and duration percentiles of one agent (or all) since `since`
   * (default: the last 24 hours); a window longer than 31 days is refused with `history.invalid_query`.
   */
  usage(query: { agentId?: string; since?: string } = {}): HistoryUsage {
    const now = this.now()
    const since = query.since === undefined ? new Date(now.getTime() - 24 * 3_600_000) : new Date(query.since)
    if (Number.isNaN(since.getTime())) throw new HistoryError('history.invalid_query', `since: ${query.since ?? ''} is not a date.`, { since: query.since })
    if (now.getTime() - since.getTime() > usageMaxWindowMs) {
      throw new HistoryError('history.invalid_query', `since: the usage window is at most 31 days; ${query.since ?? ''} is further back.`, {
        since: query.since
      })
    }
    if (since.getTime() > now.getTime())
      throw new HistoryError('history.invalid_query', `since: ${query.since ?? ''} is in the future.`, { since: query.since })
    return this.repository.usage({ agentId: query.agentId, since, now })
  }

  /** The agent that made a call, or undefined (no such call, or no agent). */
  agentOf(id: string): string | undefined {
    return this.repository.get(id)?.agentId ?? undefined
  }

  /** Everything recorded of one call; `history.not_found` when there is no such call. */
  detail(id: string): HistoryDetail {
    const detail = this.repository.get(id)
    if (!detail) throw new HistoryError('history.not_found', `There is no call ${id} in history.`, { id })
    return { ...detail, stdout: this.output(detail.stdout), stderr: this.output(detail.stderr) }
  }

  /**
   * Verifies the whole record: the hash chain (every row, every log file), the audit ledger of
   * calls, approvals and events, and the anchored head (which it then moves to the head verified).
   * The first problem and why when it is not intact; `brokenAt` only when it concerns a history row.
   */
  verify(): HistoryVerification {
    const result = this.audit()
    if (result.ok) return { ok: true, rows: result.rows, head: result.historyHead }
    const reason = result.failed === 'history' ? result.reason : `${result.failed === 'anchor' ? 'audit anchor' : 'audit ledger'}: ${result.reason}`
    return { ok: false, rows: result.rows, ...(result.brokenAt ? { brokenAt: result.brokenAt } : {}), reason }
  }

  /** The whole record's verification in full (ledger entries, head, anchors, and a head the operator kept): what `airlock audit verify` prints. */
  audit(options: { kept?: LedgerHead } = {}): AuditVerification {
    return this.repository.audit(options)
  }

  /** An output kept in a log file, read back; a file that is gone or changed gives no text and says so. */
  private output(stream: HistoryOutput): HistoryOutput {
    if (stream.logFile === null) return stream
    let bytes: Buffer
    try {
      bytes = this.repository.readLog(stream.logFile)
    } catch (error) {
      return {
        ...stream,
        text: null,
        problem: `the log file logs/${stream.logFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`
      }
    }
    if (createHash('sha256').update(bytes).digest('hex') !== stream.sha256) {
      return {
        ...stream,
        text: null,
        problem: `the log file logs/${stream.logFile} does not match the sha256 recorded for it: it was changed, so it is not shown`
      }
    }
    return { ...stream, text: bytes.toString('utf8') }
  }
}
