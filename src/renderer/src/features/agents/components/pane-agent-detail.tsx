import { Pencil, RotateCcw, Trash2 } from 'lucide-react'
import { useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Badge, Button, ConfirmDialog, CopyButton, Tabs, TextAgent } from '../../../ui'
import { activityOf, formatCreated } from '../lib/agent-selectors'
import type { AgentsQuery, AgentTab } from '../lib/agents-url'
import { useAgentsStore } from '../store/agents-store'
import { DialogAgentProfile } from './dialog-agent-profile'
import { PaneAgentConnect } from './pane-agent-connect'
import { PaneAgentOverview } from './pane-agent-overview'
import { PaneAgentProfile } from './pane-agent-profile'
import { PaneAgentTimeline } from './pane-agent-timeline'
import { PaneWorkspace } from './pane-workspace'
import { StripAgentFacts } from './strip-agent-facts'

/** The selected agent: who it is, its switch and actions, key facts, and tabs for overview, timeline, workspace, connection and profile. */
export function PaneAgentDetail(props: { agentId: string; tab: AgentTab; file?: string; onQuery(change: Partial<AgentsQuery>): void }) {
  const agent = useAgentsStore((state) => state.agents.find((a) => a.id === props.agentId))
  const state = useAgentsStore(useShallow((s) => (agent ? activityOf(agent, s.sessions, s.pending, s.lastCalls[agent.id]).state : 'idle')))
  const workspace = useAgentsStore((s) => (s.detail.value?.agent.id === props.agentId ? s.detail.value.workspace : undefined))
  const { busy, setEnabled, remove, rotateToken } = useAgentsStore(
    useShallow((s) => ({ busy: s.busy[props.agentId] === true, setEnabled: s.setEnabled, remove: s.remove, rotateToken: s.rotateToken }))
  )
  const [editing, setEditing] = useState(false)
  const [confirm, setConfirm] = useState<'remove' | 'rotate' | undefined>()
  if (!agent) return null
  const id = agent.id

  return (
    <section className="ag-detail" data-testid="agent-detail" aria-labelledby="ag-detail-title">
      <header className="ag-detail-head">
        <div className="ag-detail-who">
          <h2 id="ag-detail-title" className="ag-detail-title">
            <TextAgent text={agent.name} />
            <StateBadge state={state} />
          </h2>
          <div className="ag-detail-sub">
            <code>{id}</code>
            {agent.role && (
              <span>
                role <strong>{agent.role}</strong>
              </span>
            )}
            <span>created {formatCreated(agent.createdAt)}</span>
            {workspace && (
              <span className="ag-detail-path" title={workspace}>
                <code>{workspace}</code>
                <CopyButton text={workspace} label="Copy path" testId="agent-workspace-copy" />
              </span>
            )}
          </div>
        </div>
        <div className="ag-detail-actions">
          <label className="ag-switch" title={agent.enabled ? 'Disable: its sessions end and its calls stop' : 'Enable'}>
            <input
              type="checkbox"
              role="switch"
              checked={agent.enabled}
              disabled={busy}
              onChange={(event) => void setEnabled(id, event.target.checked)}
              data-testid={`agent-enabled-${id}`}
            />
            <span className="ag-switch-track" aria-hidden="true" />
            <span className="ag-switch-label" data-testid={`agent-state-${id}`}>
              {agent.enabled ? 'enabled' : 'disabled'}
            </span>
          </label>
          <Button size="sm" icon={<Pencil size={13} />} onClick={() => setEditing(true)} data-testid="agent-edit-open">
            Edit profile
          </Button>
          <Button
            size="sm"
            icon={<RotateCcw size={13} />}
            aria-label="Rotate token"
            title="Rotate token"
            onClick={() => setConfirm('rotate')}
            disabled={busy}
            data-testid={`agent-rotate-${id}`}
          >
            <span className="ag-btn-label">Rotate token</span>
          </Button>
          <Button
            size="sm"
            variant="ghost"
            className="ag-danger-ghost"
            icon={<Trash2 size={13} />}
            aria-label="Remove agent"
            title="Remove agent"
            onClick={() => setConfirm('remove')}
            disabled={busy}
            data-testid={`agent-remove-${id}`}
          >
            <span className="ag-btn-label">Remove</span>
          </Button>
        </div>
      </header>
      {agent.profileError && (
        <div className="banner banner-error" role="alert" data-testid="agent-profile-error">
          The stored profile no longer validates, so this agent cannot start sessions: {agent.profileError}. Edit the profile to fix it.
        </div>
      )}
      <StripAgentFacts agentId={id} />
      <Tabs
        label="Agent details"
        value={props.tab}
        onValueChange={(tab) => props.onQuery({ tab: tab as AgentTab })}
        items={[
          { value: 'overview', label: 'Overview', testId: 'agent-tab-overview', content: <PaneAgentOverview agentId={id} /> },
          { value: 'timeline', label: 'Timeline', testId: 'agent-tab-timeline', content: <PaneAgentTimeline agentId={id} /> },
          {
            value: 'workspace',
            label: 'Workspace',
            testId: 'agent-tab-workspace',
            content: <PaneWorkspace agentId={id} file={props.file} onOpenFile={(file) => props.onQuery({ file })} />
          },
          { value: 'connect', label: 'Connect', testId: 'agent-tab-connect', content: <PaneAgentConnect /> },
          { value: 'profile', label: 'Profile', testId: 'agent-tab-profile', content: <PaneAgentProfile agentId={id} /> }
        ]}
      />
      <DialogAgentProfile mode="edit" agentId={id} open={editing} onOpenChange={setEditing} />
      <ConfirmDialog
        open={confirm === 'remove'}
        onOpenChange={(open) => setConfirm(open ? 'remove' : undefined)}
        title={`Remove ${id}?`}
        confirmLabel="Remove agent"
        danger
        onConfirm={() => void remove(id)}
        testId="dialog-agent-remove"
      >
        <p>Its token stops working and its open sessions end. Its history stays.</p>
        <p>
          Its workspace is moved aside to <code>workspaces/.removed/</code>, not deleted.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === 'rotate'}
        onOpenChange={(open) => setConfirm(open ? 'rotate' : undefined)}
        title={`Rotate the token of ${id}?`}
        confirmLabel="Rotate token"
        onConfirm={() => void rotateToken(id)}
        testId="dialog-agent-rotate"
      >
        <p>A new token is issued and shown once. The current token stops working at once: clients using it must be given the new one.</p>
      </ConfirmDialog>
    </section>
  )
}

function StateBadge({ state }: { state: 'connected' | 'idle' | 'disabled' | 'invalid' }) {
  const tone = state === 'connected' ? 'ok' : state === 'invalid' ? 'bad' : 'neutral'
  return (
    <Badge tone={tone} testId="agent-detail-state">
      {state === 'invalid' ? 'profile invalid' : state}
    </Badge>
  )
}
