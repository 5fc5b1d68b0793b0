import { CardEmptyState } from '../../../app/card-empty-state'
import { ViewHeader } from '../../../app/view-header'

/** The Approvals view: the operator's queue. */
export function ApprovalsView() {
  return (
    <>
      <ViewHeader title="Approvals" subtitle="Risky actions wait here until you approve or deny them; undecided items are denied when they expire." />
      <CardEmptyState title="Nothing is waiting for you" testId="empty-approvals">
        <p>When an agent asks for something its policy says a person must decide (a risky command, a network call, a skill to persist), the request appears here with its command or diff, risk flags and the rule that asked.</p><p>The queue is empty: no request is pending.</p>
      </CardEmptyState>
    </>
  )
}
