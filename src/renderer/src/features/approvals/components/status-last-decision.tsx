import { Check, X } from 'lucide-react'
import { TextAgent } from '../../../ui'
import { useApprovalsStore } from '../store/approvals-store'
import { outcomeTitle, summaryText } from '../lib/queue'
import { approvalsHash } from '../lib/view-query'

/**
 * One line saying what the last decision made here did (approved once, denied, recorded as expired
 * because nobody waited any more) and to how many calls it went, with a link to the item.
 */
export function StatusLastDecision() {
  const last = useApprovalsStore((state) => state.lastDecided)
  const select = useApprovalsStore((state) => state.select)
  return (
    <div className="appr-status" role="status" data-testid="approval-last-decision">
      {last?.decision && (
        <>
          {last.status === 'approved' ? (
            <span className="appr-status-ok">
              <Check size={15} aria-hidden="true" />
            </span>
          ) : (
            <span className="appr-status-bad">
              <X size={15} aria-hidden="true" />
            </span>
          )}
          <strong>{last.status === 'expired' ? 'Recorded as expired' : outcomeTitle(last.decision)}</strong>
          <code>
            {last.agentId ?? 'no agent'} · <TextAgent text={summaryText(last)} />
          </code>
          <span className="appr-muted">
            {last.status === 'expired' ? 'nobody was waiting any more' : `delivered to ${last.decision.delivered} ${last.decision.delivered === 1 ? 'call' : 'calls'}`}
          </span>
          <a
            href={approvalsHash({ tab: 'queue', id: last.id })}
            onClick={(event) => {
              event.preventDefault()
              void select(last.id)
            }}
          >
            View
          </a>
        </>
      )}
    </div>
  )
}
