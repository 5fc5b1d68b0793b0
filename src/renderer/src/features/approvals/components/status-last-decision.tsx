import { Check, Undo2, X } from 'lucide-react'
import { useState } from 'react'
import { Button, TextAgent } from '../../../ui'
import { useApprovalsStore } from '../store/approvals-store'
import { outcomeTitle, summaryText } from '../lib/queue'
import { approvalsHash } from '../lib/view-query'

/**
 * One line saying what the last decision made here did (approved once, denied, recorded as expired
 * because nobody waited any more) and to how many calls it went, with a link to the item. An
 * approval for the session (or as a rule) can be taken back here: Undo revokes the remembered rule
 * it made, so the agent's next identical request asks again (calls it already answered stand).
 */
export function StatusLastDecision() {
  const last = useApprovalsStore((state) => state.lastDecided)
  const select = useApprovalsStore((state) => state.select)
  const revokeRule = useApprovalsStore((state) => state.revokeRule)
  const [undone, setUndone] = useState<{ ruleId: string; error?: string }>()
  const ruleId = last?.decision?.ruleId
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
            {last.status === 'expired'
              ? 'nobody was waiting any more'
              : `delivered to ${last.decision.delivered} ${last.decision.delivered === 1 ? 'call' : 'calls'}`}
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
          {ruleId && undone?.ruleId !== ruleId && (
            <Button
              size="sm"
              variant="ghost"
              icon={<Undo2 size={14} aria-hidden="true" />}
              data-testid="approval-undo-remember"
              title="Revoke the rule this approval made: the next identical request asks again"
              onClick={async () => setUndone({ ruleId, error: await revokeRule(ruleId) })}
            >
              Undo {last.decision.scope === 'session' ? 'for the session' : 'the rule'}
            </Button>
          )}
          {ruleId && undone?.ruleId === ruleId && (
            <span className={undone.error ? 'appr-status-bad' : 'appr-muted'} data-testid="approval-undo-result">
              {undone.error ?? 'Undone: the next identical request asks again.'}
            </span>
          )}
        </>
      )}
    </div>
  )
}
