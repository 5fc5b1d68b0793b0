import type { HistoryStatus } from '@shared/ipc/history'
import { statusLabel, statusTone } from '../lib/history-selectors'

/** A call's status as a coloured badge. */
export function BadgeStatus({ status, testId }: { status: HistoryStatus; testId?: string }) {
  return (
    <span className={`badge badge-${statusTone(status)}`} data-testid={testId} data-status={status}>
      {statusLabel(status)}
    </span>
  )
}
