import { CardEmptyState } from '../../../app/card-empty-state'
import { ViewHeader } from '../../../app/view-header'

/** The History view: the execution history. */
export function HistoryView() {
  return (
    <>
      <ViewHeader title="History" subtitle="Every file write, command, code run, query, browse and MCP call an agent makes is recorded here." />
      <CardEmptyState title="No actions recorded" testId="empty-history">
        <p>Each action call appears here with its agent, tool, status, provider, isolation facts, output and duration, newest first, and can be filtered and exported.</p><p>Nothing has run through this Airlock home yet.</p>
      </CardEmptyState>
    </>
  )
}
