import type { HistoryStatus } from '@shared/ipc/history'
import type { BadgeTone } from '../ui'

/**
 * A program that ran and exited non-zero: the call's status is `success` (Airlock ran it as
 * asked), but the operator must not read it as a green success. Both History and the Agents view
 * show it as `exit N`, in the warning colour, with the status in the title.
 */
export function nonZeroExit(status: HistoryStatus, exitCode: number | null | undefined): number | undefined {
  return status === 'success' && typeof exitCode === 'number' && exitCode !== 0 ? exitCode : undefined
}

/** The sentence behind an `exit N` label. */
export function nonZeroExitTitle(exitCode: number): string {
  return `The call ran (status success), and the program exited with code ${exitCode}.`
}

const tones: Record<HistoryStatus, BadgeTone> = {
  success: 'ok',
  error: 'bad',
  blocked: 'bad',
  timed_out: 'warn',
  approval_required: 'warn',
  interrupted: 'warn',
  cancelled: 'neutral',
  running: 'info',
  waiting_approval: 'warn'
}

/** The colour family of a status (the label always says it too). */
export function statusTone(status: HistoryStatus): BadgeTone {
  return tones[status] ?? 'neutral'
}

/** A status as the table reads: `approval_required` → `approval required`; `waiting_approval` → `waiting` (for the operator's decision: the hourglass and the hover say so). */
export function statusLabel(status: HistoryStatus): string {
  return status === 'waiting_approval' ? 'waiting' : status.replace(/_/g, ' ')
}

/** A call's run time: its duration without the wait for an approval; null while it has no duration. */
export function runTime(row: { durationMs: number | null; waitMs: number | null }): number | null {
  return row.durationMs === null ? null : Math.max(0, row.durationMs - (row.waitMs ?? 0))
}

/** A duration: `850 ms`, `1.43 s`, `2m 05s`, `1h 02m`; a dash when unknown. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—'
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
  const seconds = Math.round(ms / 1000)
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`
  return `${Math.floor(seconds / 3600)}h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`
}

/** A time still counting (a wait, a run): whole seconds under a minute (`7 s`), else as `formatDuration`. */
export function formatElapsed(ms: number): string {
  return ms < 60_000 ? `${Math.floor(Math.max(0, ms) / 1000)} s` : formatDuration(ms)
}
