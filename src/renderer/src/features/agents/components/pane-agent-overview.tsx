import { ArrowRight } from 'lucide-react'
import { useShallow } from 'zustand/react/shallow'
import type { HistoryStatus } from '@shared/ipc/history'
import { visibleText } from '@shared/visible-text'
import { formatDuration, nonZeroExit, nonZeroExitTitle, runTime, statusLabel, statusTone } from '../../../lib/call-outcome'
import { Badge, ErrorBanner, Loading, TextAgent, TimeAgo } from '../../../ui'
import { taintTone } from '../lib/agent-selectors'
import { historyLink } from '../lib/agents-url'
import { callSubject } from '../lib/usage'
import { useAgentsStore } from '../store/agents-store'
import { ChartAgentUsage } from './chart-agent-usage'
import { LineLiveCall } from './line-live-call'

/** The overview tab: usage over time, the latest calls (with the way into History) and the agent's sessions. */
export function PaneAgentOverview({ agentId }: { agentId: string }) {
  return (
    <div className="ag-overview">
      <ChartAgentUsage />
      <div className="ag-overview-columns">
        <ListRecentCalls agentId={agentId} />
        <ListAgentSessions />
      </div>
    </div>
  )
}

function ListRecentCalls({ agentId }: { agentId: string }) {
  const calls = useAgentsStore(useShallow((state) => state.recentCalls))
  const refresh = useAgentsStore((state) => state.refreshCalls)
  return (
    <section className="ag-card" aria-labelledby="ag-calls-title" data-testid="agent-recent-calls">
      <header className="ag-card-head">
        <h3 id="ag-calls-title">Recent calls</h3>
        <a href={historyLink(agentId)} className="ag-link" data-testid="agent-history-link">
          {calls.value ? `All ${calls.value.total.toLocaleString()} in History` : 'Open in History'} <ArrowRight size={13} aria-hidden="true" />
        </a>
      </header>
      {calls.status === 'error' && <ErrorBanner message={calls.error!.message} onRetry={() => void refresh()} />}
      {!calls.value && calls.status !== 'error' && <Loading label="Loading calls…" />}
      {calls.value && calls.value.rows.length === 0 && (
        <p className="ag-card-empty" data-testid="agent-calls-empty">
          No calls recorded yet. Connect the agent (the Connect tab) and its calls appear here as they run.
        </p>
      )}
      {calls.value && calls.value.rows.length > 0 && (
        <ul className="ag-calls">
          {calls.value.rows.map((row) => (
            <li key={row.id}>
              <a href={historyLink(agentId, row.id)} className="ag-call" data-testid={`agent-call-${row.id}`}>
                <CallStatusBadge status={row.status} exitCode={row.exitCode} />
                <span className="ag-call-tool">
                  <TextAgent text={row.tool} />
                </span>
                <span className="ag-call-subject" title={visibleText(callSubject(row))}>
                  <TextAgent text={callSubject(row)} />
                </span>
                <span className="ag-call-duration">{formatDuration(runTime(row))}</span>
                <span className="ag-call-when">
                  <TimeAgo iso={row.startedAt} />
                </span>
                {row.status === 'running' && <LineLiveCall callId={row.id} />}
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

function ListAgentSessions() {
  const sessions = useAgentsStore(useShallow((state) => state.agentSessions))
  const rows = sessions.value ? [...sessions.value].sort((a, b) => Number(b.endedAt === null) - Number(a.endedAt === null)).slice(0, 8) : []
  return (
    <section className="ag-card" aria-labelledby="ag-sessions-title" data-testid="agent-sessions">
      <header className="ag-card-head">
        <h3 id="ag-sessions-title">Sessions</h3>
        {sessions.value && <span className="ag-muted ag-small">{sessions.value.length >= 50 ? 'latest 50' : `${sessions.value.length} in all`}</span>}
      </header>
      {sessions.status === 'error' && <ErrorBanner message={sessions.error!.message} />}
      {!sessions.value && sessions.status !== 'error' && <Loading label="Loading sessions…" />}
      {sessions.value && sessions.value.length === 0 && (
        <p className="ag-card-empty">No session yet: one opens when an MCP client connects with this agent’s token.</p>
      )}
      {rows.length > 0 && (
        <ul className="ag-sessions">
          {rows.map((session) => {
            const open = session.endedAt === null
            return (
              <li key={session.id} className="ag-session" data-testid={`agent-session-${session.id}`}>
                <span className={`ag-dot ${open ? 'ag-dot-connected' : 'ag-dot-idle'}`} aria-hidden="true" />
                <span className="ag-session-main">
                  <span className="ag-session-line">
                    <code title={session.id}>{session.id.slice(0, 8)}</code>
                    <span className="ag-muted">{session.transport}</span>
                    <Badge tone={taintTone(session.taint)} title="Taint of the session">
                      {session.taint}
                    </Badge>
                  </span>
                  <span className="ag-session-when ag-muted">
                    {open ? (
                      <>
                        open · started <TimeAgo iso={session.startedAt} />
                        {session.lastSeenAt && (
                          <>
                            {' '}
                            · seen <TimeAgo iso={session.lastSeenAt} />
                          </>
                        )}
                      </>
                    ) : (
                      <>
                        ended {session.endedAt ? <TimeAgo iso={session.endedAt} /> : ''}
                        {session.endReason ? ` · ${session.endReason.replace(/_/g, ' ')}` : ''}
                      </>
                    )}
                  </span>
                </span>
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}

/** A call's status, or `exit N` in the warning colour when its program exited non-zero. */
function CallStatusBadge({ status, exitCode }: { status: HistoryStatus; exitCode: number | null }) {
  const exited = nonZeroExit(status, exitCode)
  if (exited === undefined) return <Badge tone={statusTone(status)}>{statusLabel(status)}</Badge>
  return (
    <Badge tone="warn" title={nonZeroExitTitle(exited)}>
      exit {exited}
    </Badge>
  )
}
