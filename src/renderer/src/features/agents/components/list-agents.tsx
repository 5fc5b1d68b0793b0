import { Search } from 'lucide-react'
import { useState, type KeyboardEvent } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Badge, CountBadge, TextAgent, TimeAgo } from '../../../ui'
import { activityOf, agentCounts, filterAgents, sortedAgents, taintTone, type AgentActivity } from '../lib/agent-selectors'
import { agentsHash } from '../lib/agents-url'
import { useAgentsStore } from '../store/agents-store'

/** The registered agents (newest first) with a filter; each row says state, sessions, taint, pending approvals and last activity. */
export function ListAgents(props: { selected?: string; onSelect(agentId: string): void }) {
  const [filter, setFilter] = useState('')
  const counts = useAgentsStore(useShallow((state) => agentCounts(state.agents)))
  const shown = useAgentsStore(useShallow((state) => filterAgents(sortedAgents(state.agents), filter).map((agent) => agent.id)))
  return (
    <aside className="ag-list-pane" aria-label="Agents">
      <div className="ag-list-head">
        <label className="ag-search">
          <Search size={14} aria-hidden="true" />
          <input
            className="ag-input ag-search-input"
            type="search"
            placeholder="Filter by id, name or role"
            aria-label="Filter agents"
            value={filter}
            onChange={(event) => setFilter(event.target.value)}
            data-testid="agents-filter"
          />
        </label>
        <div className="ag-list-count" data-testid="agents-count">
          {counts.total} {counts.total === 1 ? 'agent' : 'agents'} · {counts.enabled} enabled{counts.disabled > 0 ? ` · ${counts.disabled} disabled` : ''}
        </div>
      </div>
      <ul className="ag-list" data-testid="list-agents" onKeyDown={moveFocus}>
        {shown.map((id) => (
          <RowAgent key={id} agentId={id} selected={id === props.selected} onSelect={props.onSelect} />
        ))}
        {shown.length === 0 && (
          <li className="ag-list-none" data-testid="agents-filter-none">
            No agent matches “{filter}”.
          </li>
        )}
      </ul>
    </aside>
  )
}

// Up and Down move between rows (Enter opens one), so the list reads like the tables of the other views.
function moveFocus(event: KeyboardEvent<HTMLUListElement>) {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return
  const rows = [...event.currentTarget.querySelectorAll<HTMLAnchorElement>('a.ag-row')]
  const index = rows.indexOf(document.activeElement as HTMLAnchorElement)
  if (index < 0) return
  rows[Math.max(0, Math.min(rows.length - 1, index + (event.key === 'ArrowDown' ? 1 : -1)))]?.focus()
  event.preventDefault()
}

const stateLabel: Record<AgentActivity['state'], string> = { connected: 'connected', idle: 'idle', disabled: 'disabled', invalid: 'profile invalid' }

function RowAgent(props: { agentId: string; selected: boolean; onSelect(agentId: string): void }) {
  const agent = useAgentsStore(
    useShallow((state) => {
      const found = state.agents.find((a) => a.id === props.agentId)
      return found ? { id: found.id, name: found.name, role: found.role } : undefined
    })
  )
  const activity = useAgentsStore(
    useShallow((state) => {
      const found = state.agents.find((a) => a.id === props.agentId)
      return found ? activityOf(found, state.sessions, state.pending, state.lastCalls[found.id]) : undefined
    })
  )
  if (!agent || !activity) return null
  const id = agent.id
  return (
    <li>
      <a
        href={agentsHash({ agent: id, tab: 'overview' })}
        className={`ag-row ag-row-${activity.state}${props.selected ? ' ag-row-selected' : ''}`}
        aria-current={props.selected ? 'true' : undefined}
        data-testid={`agent-row-${id}`}
        onClick={(event) => {
          event.preventDefault()
          props.onSelect(id)
        }}
      >
        <span className={`ag-dot ag-dot-${activity.state}`} aria-hidden="true" />
        <span className="ag-row-main">
          <span className="ag-row-line">
            <span className="ag-row-id">{id}</span>
            {agent.name !== id && (
              <span className="ag-row-name">
                <TextAgent text={agent.name} />
              </span>
            )}
          </span>
          <span className="ag-row-meta">
            <span data-testid={`agent-status-${id}`}>{stateLabel[activity.state]}</span>
            {activity.openSessions > 0 && (
              <span data-testid={`agent-sessions-${id}`}>
                {activity.openSessions} {activity.openSessions === 1 ? 'session' : 'sessions'}
              </span>
            )}
            {agent.role && <span title="Role">{agent.role}</span>}
            {activity.taint && (
              <Badge tone={taintTone(activity.taint)} title="Highest taint of its open sessions" testId={`agent-taint-${id}`}>
                {activity.taint}
              </Badge>
            )}
          </span>
        </span>
        <span className="ag-row-side">
          <CountBadge count={activity.pending} label={activity.pending === 1 ? 'pending approval' : 'pending approvals'} testId={`agent-pending-${id}`} />
          <span className="ag-row-when" data-testid={`agent-activity-${id}`}>
            {activity.lastActivity ? <TimeAgo iso={activity.lastActivity} /> : 'no activity'}
          </span>
        </span>
      </a>
    </li>
  )
}
