import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { CardEmptyState } from '../../../app/card-empty-state'
import { ViewHeader } from '../../../app/view-header'
import { agentCounts, sortedAgents } from '../lib/agent-selectors'
import { useAgentsStore } from '../store/agents-store'
import { FormCreateAgent } from './form-create-agent'
import { PanelAgentToken } from './panel-agent-token'
import { TableAgents } from './table-agents'

/** The Agents view: registered agents, a form to create one (its token shown once), enable/disable and removal. */
export function AgentsView() {
  const { status, error, issued, load, dismissToken, clearError } = useAgentsStore(
    useShallow((state) => ({ status: state.status, error: state.error, issued: state.issued, load: state.load, dismissToken: state.dismissToken, clearError: state.clearError }))
  )
  const agents = useAgentsStore(useShallow((state) => sortedAgents(state.agents)))
  const [creating, setCreating] = useState(false)
  useEffect(() => {
    if (status === 'idle') void load()
  }, [status, load])
  // The token is shown once: leaving the view drops it as dismissing does.
  useEffect(() => dismissToken, [dismissToken])
  const counts = agentCounts(agents)
  return (
    <>
      <ViewHeader title="Agents" subtitle="Agents connect over MCP with their own token; each has a workspace, a profile and its history." />
      <div className="toolbar toolbar-spaced">
        {!creating && (
          <button type="button" className="button-primary" data-testid="agents-new" onClick={() => setCreating(true)}>
            New agent
          </button>
        )}
        {counts.total > 0 && (
          <span className="muted small" data-testid="agents-count">
            {counts.total} {counts.total === 1 ? 'agent' : 'agents'} · {counts.enabled} enabled{counts.disabled > 0 ? ` · ${counts.disabled} disabled` : ''}
          </span>
        )}
      </div>
      {error && (
        <div className="banner banner-error banner-dismissable" role="alert" data-testid="agents-error">
          <span>{error}</span>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={clearError}>
            ×
          </button>
        </div>
      )}
      {issued && <PanelAgentToken issued={issued} onDismiss={dismissToken} />}
      {creating && <FormCreateAgent onDone={() => setCreating(false)} />}
      {status === 'ready' && agents.length === 0 && (
        <CardEmptyState title="No agents registered" testId="empty-agents">
          <p>
            Every agent you register appears here with its status, workspace, taint level and pending approvals, plus the snippet to connect it.
          </p>
          <p>The list is empty because no agent has been registered in this Airlock home yet.</p>
          <p>
            Create one with <strong>New agent</strong>, or from the command line: <code>airlock agent create &lt;id&gt;</code>
          </p>
        </CardEmptyState>
      )}
      {agents.length > 0 && <TableAgents agents={agents} />}
    </>
  )
}
