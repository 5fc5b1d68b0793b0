import type { AgentView } from '@shared/agents'
import { useState } from 'react'
import { formatCreated } from '../lib/agent-selectors'
import { useAgentsStore } from '../store/agents-store'

/** The registered agents: id and name, role, an enabled switch, creation time, and removal (confirmed). */
export function TableAgents({ agents }: { agents: AgentView[] }) {
  return (
    <table className="table table-agents" data-testid="table-agents">
      <thead>
        <tr>
          <th>Agent</th>
          <th>Role</th>
          <th>Enabled</th>
          <th>Created</th>
          <th aria-label="Actions" />
        </tr>
      </thead>
      <tbody>
        {agents.map((agent) => (
          <RowAgent key={agent.id} agent={agent} />
        ))}
      </tbody>
    </table>
  )
}

function RowAgent({ agent }: { agent: AgentView }) {
  const busy = useAgentsStore((state) => state.busy[agent.id] === true)
  const setEnabled = useAgentsStore((state) => state.setEnabled)
  const remove = useAgentsStore((state) => state.remove)
  const [confirming, setConfirming] = useState(false)
  return (
    <tr data-testid={`agent-${agent.id}`} className={agent.enabled ? undefined : 'row-dim'}>
      <td>
        <code className="agent-id">{agent.id}</code>
        {agent.name !== agent.id && <div className="cell-sub">{agent.name}</div>}
        {agent.profileError && (
          <div className="cell-sub field-error" title={agent.profileError}>
            profile invalid: {agent.profileError}
          </div>
        )}
      </td>
      <td>{agent.role ?? <span className="muted">—</span>}</td>
      <td>
        <label className="switch" title={agent.enabled ? 'Disable: its sessions end and its calls stop' : 'Enable'}>
          <input
            type="checkbox"
            role="switch"
            data-testid={`agent-enabled-${agent.id}`}
            checked={agent.enabled}
            disabled={busy}
            onChange={(event) => void setEnabled(agent.id, event.target.checked)}
          />
          <span className="switch-track" aria-hidden="true" />
          <span className={agent.enabled ? 'switch-label' : 'switch-label muted'} data-testid={`agent-state-${agent.id}`}>
            {agent.enabled ? 'enabled' : 'disabled'}
          </span>
        </label>
      </td>
      <td className="nowrap">
        <time dateTime={agent.createdAt}>{formatCreated(agent.createdAt)}</time>
      </td>
      <td>
        <div className="actions">
          {confirming ? (
            <span className="confirm" data-testid={`agent-remove-confirmation-${agent.id}`}>
              <span className="small muted">Remove {agent.id}? Its workspace is moved aside, not deleted.</span>
              <button
                type="button"
                className="button-danger"
                data-testid={`agent-remove-confirm-${agent.id}`}
                disabled={busy}
                onClick={() => void remove(agent.id).then(() => setConfirming(false))}
              >
                Remove
              </button>
              <button type="button" className="button-secondary" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </span>
          ) : (
            <button type="button" className="button-secondary" data-testid={`agent-remove-${agent.id}`} disabled={busy} onClick={() => setConfirming(true)}>
              Remove
            </button>
          )}
        </div>
      </td>
    </tr>
  )
}
