import { CardEmptyState } from '../../../app/card-empty-state'
import { ViewHeader } from '../../../app/view-header'

/** The Agents view: registered agents and their workspaces. */
export function AgentsView() {
  return (
    <>
      <ViewHeader title="Agents" subtitle="Agents connect over MCP with their own token; each has a workspace, a profile and its history." />
      <CardEmptyState title="No agents registered" testId="empty-agents">
        <p>Every agent you register appears here with its status, workspace, taint level and pending approvals, plus the snippet to connect it.</p><p>The list is empty because no agent has been registered in this Airlock home yet.</p>
      </CardEmptyState>
    </>
  )
}
