import { Bot, Plus } from 'lucide-react'
import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Button, EmptyState, ErrorBanner, Loading, ViewHeader } from '../../../ui'
import { useAgentsQuery } from '../hooks/use-agents-query'
import { sortedAgents } from '../lib/agent-selectors'
import { useAgentsStore } from '../store/agents-store'
import '../agents.css'
import { DialogAgentProfile } from './dialog-agent-profile'
import { ListAgents } from './list-agents'
import { PaneAgentDetail } from './pane-agent-detail'
import { PanelAgentToken } from './panel-agent-token'

/**
 * The Agents view: the registered agents beside the selected one's pane (overview, workspace,
 * connection snippets, profile); create and edit profiles; the token shown once.
 */
export function AgentsView() {
  const { status, error, issued, load, dismissToken, clearError, select } = useAgentsStore(
    useShallow((state) => ({
      status: state.status,
      error: state.error?.message,
      issued: state.issued,
      load: state.load,
      dismissToken: state.dismissToken,
      clearError: state.clearError,
      select: state.select
    }))
  )
  const loaded = useAgentsStore((state) => state.selectedId)
  const ids = useAgentsStore(useShallow((state) => sortedAgents(state.agents).map((agent) => agent.id)))
  const [query, setQuery] = useAgentsQuery()
  const [creating, setCreating] = useState(false)

  useEffect(() => {
    void load()
  }, [load])
  // The token is shown once: leaving the view drops it as dismissing does; the pane forgets its agent.
  useEffect(
    () => () => {
      dismissToken()
      select(undefined)
    },
    [dismissToken, select]
  )
  // The URL's agent, else the newest one; an agent that went away leaves the selection.
  const selected = query.agent && ids.includes(query.agent) ? query.agent : status === 'ready' ? ids[0] : undefined
  useEffect(() => {
    if (status !== 'ready') return
    select(selected)
    if (selected !== query.agent) setQuery({ agent: selected, file: undefined })
  }, [status, selected, query.agent, select, setQuery])

  const newAgent = (testId: string) => (
    <Button variant="primary" icon={<Plus size={14} />} onClick={() => setCreating(true)} data-testid={testId}>
      New agent
    </Button>
  )
  return (
    <div className="ag-view">
      <ViewHeader
        title="Agents"
        subtitle="Each agent connects over MCP with its own token and works in its own workspace, under its profile."
        actions={newAgent('agent-create-open')}
      />
      {error && <ErrorBanner message={error} onDismiss={clearError} testId="agents-error" />}
      {issued && <PanelAgentToken issued={issued} onDismiss={dismissToken} />}
      {status === 'loading' && ids.length === 0 && <Loading label="Loading agents…" testId="agents-loading" />}
      {status === 'error' && ids.length === 0 && <ErrorBanner message={error ?? 'The agents could not be listed.'} onRetry={() => void load()} />}
      {status === 'ready' && ids.length === 0 && (
        <EmptyState title="No agents yet" testId="empty-agents" icon={<Bot size={22} />} action={newAgent('agent-create-open-empty')}>
          <p>
            An agent is an MCP client (Claude Code, Cursor, your own) that Airlock lets act on this machine: its own token, workspace, limits and approval
            rules.
          </p>
          <p>
            Create one here, or from a terminal: <code>airlock agent create &lt;id&gt;</code>. Its token is shown once, with the snippet to connect it.
          </p>
        </EmptyState>
      )}
      {ids.length > 0 && (
        <div className="ag-layout">
          <ListAgents selected={selected} onSelect={(agent) => setQuery({ agent, file: undefined })} />
          {/* The pane mounts once the store has selected its agent, so its tabs load for that agent. */}
          {selected && loaded === selected && <PaneAgentDetail agentId={selected} tab={query.tab} file={query.file} onQuery={setQuery} />}
        </div>
      )}
      <DialogAgentProfile
        mode="create"
        open={creating}
        onOpenChange={setCreating}
        onCreated={(agentId) => {
          setCreating(false)
          setQuery({ agent: agentId, tab: 'overview', file: undefined })
        }}
      />
    </div>
  )
}
