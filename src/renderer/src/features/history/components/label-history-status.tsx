import type { HistoryStatus } from '@shared/ipc/history'
import { Ban, CircleCheck, CircleSlash, CircleX, Hand, Hourglass, LoaderCircle, TimerOff, TriangleAlert, Unplug, type LucideIcon } from 'lucide-react'
import { nonZeroExit, nonZeroExitTitle } from '../../../lib/call-outcome'
import { statusLabel, statusTone } from '../lib/format'

const icons: Record<HistoryStatus, LucideIcon> = {
  success: CircleCheck,
  error: CircleX,
  blocked: Ban,
  timed_out: TimerOff,
  approval_required: Hand,
  cancelled: CircleSlash,
  interrupted: Unplug,
  running: LoaderCircle,
  waiting_approval: Hourglass
}

/**
 * A call's status as an icon and its word, coloured by tone (GitHub Actions style): the word is
 * the element's whole text, so the meaning never rests on colour or the icon alone.
 */
export function LabelHistoryStatus({ status, exitCode, testId, pill }: { status: HistoryStatus; exitCode?: number | null; testId?: string; pill?: boolean }) {
  const exited = nonZeroExit(status, exitCode)
  const Icon = exited !== undefined ? TriangleAlert : (icons[status] ?? CircleSlash)
  return (
    <span
      className={`history-status history-status-${exited !== undefined ? 'warn' : statusTone(status)}${pill ? ' history-status-pill' : ''}`}
      data-status={status}
      title={exited !== undefined ? nonZeroExitTitle(exited) : status === 'waiting_approval' ? 'Waiting for your approval' : undefined}
    >
      <Icon size={14} aria-hidden="true" className={status === 'running' ? 'history-spin' : undefined} />
      <span data-testid={testId}>{exited !== undefined ? `exit ${exited}` : statusLabel(status)}</span>
    </span>
  )
}
