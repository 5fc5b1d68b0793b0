import type { ReactNode } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Badge, TimeAgo } from '../../../ui'
import { activityOf, taintTone } from '../lib/agent-selectors'
import { approvalsLink, historyLink } from '../lib/agents-url'
import { useAgentsStore } from '../store/agents-store'

/** The selected agent's key facts in one row: sessions, pending approvals, taint, last activity, calls, and how it asks and is isolated. */
export function StripAgentFacts({ agentId }: { agentId: string }) {
  const activity = useAgentsStore(
    useShallow((state) => {
      const agent = state.agents.find((a) => a.id === agentId)
      return agent ? activityOf(agent, state.sessions, state.pending, state.lastCalls[agentId]) : undefined
    })
  )
  const total = useAgentsStore((state) => state.recentCalls.value?.total)
  const profile = useAgentsStore(
    useShallow((state) => {
      const effective = state.detail.value?.agent.id === agentId ? state.detail.value.effectiveProfile : undefined
      return effective ? { ask: effective.ask, isolation: effective.isolation, network: effective.network } : undefined
    })
  )
  if (!activity) return null
  return (
    <dl className="ag-facts" data-testid="agent-facts">
      <Fact label="Sessions" testId="agent-fact-sessions">
        {activity.openSessions > 0 ? `${activity.openSessions} open` : <span className="ag-muted">none open</span>}
      </Fact>
      <Fact label="Pending approvals" testId="agent-fact-pending">
        {activity.pending > 0 ? (
          <a href={approvalsLink()} className="ag-fact-link ag-fact-warn">
            {activity.pending} waiting
          </a>
        ) : (
          <span className="ag-muted">none</span>
        )}
      </Fact>
      <Fact label="Taint" testId="agent-fact-taint">
        {activity.taint ? (
          <Badge tone={taintTone(activity.taint)}>{activity.taint}</Badge>
        ) : (
          <span className="ag-muted" title="Taint is a property of an open session">
            no session
          </span>
        )}
      </Fact>
      <Fact label="Last activity" testId="agent-fact-activity">
        {activity.lastActivity ? <TimeAgo iso={activity.lastActivity} /> : <span className="ag-muted">never</span>}
      </Fact>
      <Fact label="Calls recorded" testId="agent-fact-calls">
        {total === undefined ? (
          <span className="ag-muted">…</span>
        ) : (
          <a href={historyLink(agentId)} className="ag-fact-link">
            {total.toLocaleString()}
          </a>
        )}
      </Fact>
      <Fact label="Asks · isolation" testId="agent-fact-policy">
        {profile ? (
          <span
            title={`Asks ${profile.ask}; isolation ${profile.isolation}; network ${profile.network}`}
          >{`${profile.ask.replace('_', ' ')} · ${profile.isolation}`}</span>
        ) : (
          <span className="ag-muted">…</span>
        )}
      </Fact>
    </dl>
  )
}

function Fact(props: { label: string; children: ReactNode; testId: string }) {
  return (
    <div className="ag-fact" data-testid={props.testId}>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </div>
  )
}
