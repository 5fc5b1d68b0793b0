import type { HistoryStatus } from '@shared/ipc/history'
import { Ban, CircleCheck, CircleSlash, CircleX, Hand, LoaderCircle, TimerOff, Unplug, type LucideIcon } from 'lucide-react'
import { statusLabel, statusTone } from '../lib/format'

const icons: Record<HistoryStatus, LucideIcon> = {
  success: CircleCheck,
  error: CircleX,
  blocked: Ban,
  timed_out: TimerOff,
  approval_required: Hand,
  cancelled: CircleSlash,
  interrupted: Unplug,
  running: LoaderCircle
}

/**
 * A call's status as an icon and its word, coloured by tone (GitHub Actions style): the word is
 * the element's whole text, so the meaning never rests on colour or the icon alone.
 */
export function LabelHistoryStatus({ status, testId, pill }: { status: HistoryStatus; testId?: string; pill?: boolean }) {
  const Icon = icons[status] ?? CircleSlash
  return (
    <span className={`history-status history-status-${statusTone(status)}${pill ? ' history-status-pill' : ''}`} data-status={status}>
      <Icon size={14} aria-hidden="true" className={status === 'running' ? 'history-spin' : undefined} />
      <span data-testid={testId}>{statusLabel(status)}</span>
    </span>
  )
}
