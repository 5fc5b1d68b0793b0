import type { HistoryStatus } from '@shared/ipc/history'
import type { TimelineEntry } from '@shared/ipc/timeline'
import { FileDiff, Hand, LogIn, LogOut, Terminal } from 'lucide-react'
import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { formatDuration, runTime, statusLabel, statusTone } from '../../../lib/call-outcome'
import { Badge, Button, ErrorBanner, Loading, TextAgent, TimeAgo } from '../../../ui'
import { PaneCheckpointChanges } from '../../checkpoints'
import { useAgentsStore } from '../store/agents-store'

/**
 * One agent's story, newest first: sessions connecting and ending (with the client), each call with
 * what it did, the policy's rule and flags, the approval and who answered, and the files it changed
 * (opened in place as diffs, with revert); changes found between calls too. Each call links to its
 * History row. Follows the agent live (calls, sessions and checkpoints refresh it).
 */
export function PaneAgentTimeline(props: { agentId: string }) {
  const timeline = useAgentsStore(useShallow((state) => state.timeline))
  const refresh = useAgentsStore((state) => state.refreshTimeline)
  const more = useAgentsStore((state) => state.moreTimeline)
  useEffect(() => {
    void refresh()
  }, [props.agentId, refresh])
  const mine = timeline.agentId === props.agentId ? timeline : undefined
  if (!mine?.value && mine?.status === 'error')
    return <ErrorBanner message={mine.error?.message ?? 'The timeline could not be read.'} onRetry={() => void refresh()} />
  if (!mine?.value) return <Loading label="Reading the agent's timeline…" />
  const { entries } = mine.value
  return (
    <section className="ag-timeline" aria-label={`Timeline of ${props.agentId}`} data-testid="agent-timeline">
      {entries.length === 0 ? (
        <p className="ag-card-empty">Nothing yet. Sessions, calls, approvals and file changes appear here as they happen, newest first.</p>
      ) : (
        <ol className="ag-tl-list">
          {entries.map((entry) => (
            <li key={keyOf(entry)} className={`ag-tl-item ag-tl-${entry.kind}`} data-testid={`timeline-${keyOf(entry)}`} data-kind={entry.kind}>
              <EntryTimeline agentId={props.agentId} entry={entry} />
            </li>
          ))}
        </ol>
      )}
      {mine.value.more && (
        <Button size="sm" variant="ghost" busy={mine.loadingMore === true} onClick={() => void more()} data-testid="timeline-more">
          Show older
        </Button>
      )}
    </section>
  )
}

const keyOf = (entry: TimelineEntry) =>
  entry.kind === 'call' ? `call-${entry.callId}` : entry.kind === 'session' ? `session-${entry.sessionId}-${entry.change}` : `changes-${entry.checkpointId}`

function EntryTimeline(props: { agentId: string; entry: TimelineEntry }) {
  const { entry } = props
  const [open, setOpen] = useState(false)
  const when = (
    <span className="ag-tl-when" title={entry.at}>
      <TimeAgo iso={entry.at} />
    </span>
  )
  if (entry.kind === 'session') {
    const Icon = entry.change === 'connected' ? LogIn : LogOut
    return (
      <div className="ag-tl-row">
        <Icon size={14} aria-hidden="true" className="ag-tl-icon" />
        <span>
          {entry.change === 'connected' ? 'Connected' : 'Disconnected'} · {entry.transport}
          {entry.client && (
            <>
              {' '}
              · <TextAgent text={entry.client} />
            </>
          )}
          {entry.reason && <span className="ag-muted"> · {entry.reason.replaceAll('_', ' ')}</span>}
        </span>
        {when}
      </div>
    )
  }
  if (entry.kind === 'changes') {
    return (
      <>
        <div className="ag-tl-row">
          <FileDiff size={14} aria-hidden="true" className="ag-tl-icon" />
          <span>
            {entry.files} {entry.files === 1 ? 'entry' : 'entries'} changed between calls (not by a call of this agent)
          </span>
          <Button size="sm" variant="ghost" onClick={() => setOpen(!open)} aria-expanded={open} data-testid={`timeline-changes-toggle-${entry.checkpointId}`}>
            {open ? 'Hide changes' : 'Show changes'}
          </Button>
          {when}
        </div>
        {open && <PaneCheckpointChanges callId={entry.checkpointId} heading="none" />}
      </>
    )
  }
  const status = entry.status as HistoryStatus
  const ran = runTime({ durationMs: entry.durationMs, waitMs: entry.waitMs })
  return (
    <>
      <div className="ag-tl-row">
        <Terminal size={14} aria-hidden="true" className="ag-tl-icon" />
        <Badge tone={statusTone(status)}>{statusLabel(status)}</Badge>
        <code className="ag-tl-tool">
          <TextAgent text={entry.tool} />
        </code>
        <code className="ag-tl-what" title={entry.what}>
          <TextAgent text={entry.what} />
        </code>
        {entry.sessionId === 'operator' && <Badge tone="info">operator</Badge>}
        {when}
      </div>
      <div className="ag-tl-facts">
        {entry.riskFlags.map((flag) => (
          <Badge key={flag} tone={flag === 'recoverable_deletion' ? 'neutral' : 'warn'}>
            {flag.replaceAll('_', ' ')}
          </Badge>
        ))}
        {entry.rule && <span className="ag-muted">rule {entry.rule}</span>}
        {entry.approval && <ApprovalOfCall approval={entry.approval} waitMs={entry.waitMs} />}
        {ran !== null && <span className="ag-muted">ran {formatDuration(ran)}</span>}
        {/* A denial's reason is on the approval line already. */}
        {entry.error && entry.error.code !== 'approval.denied' && (
          <span className="ag-tl-error" title={entry.error.message}>
            <TextAgent text={`${entry.error.code}: ${entry.error.message}`} />
          </span>
        )}
        {entry.changed !== null && (
          <Button size="sm" variant="ghost" onClick={() => setOpen(!open)} aria-expanded={open} data-testid={`timeline-changes-toggle-${entry.callId}`}>
            {open ? 'Hide' : 'Show'} {entry.changed} changed {entry.changed === 1 ? 'entry' : 'entries'}
          </Button>
        )}
        <a
          href={`#/history?agent=${encodeURIComponent(props.agentId)}&id=${encodeURIComponent(entry.callId)}`}
          className="ag-tl-link"
          data-testid={`timeline-history-${entry.callId}`}
        >
          history row
        </a>
      </div>
      {open && <PaneCheckpointChanges callId={entry.callId} heading="none" />}
    </>
  )
}

/** Who answered the call's approval: the operator (once, for the session, as a rule) or a remembered rule, and how long it waited. */
function ApprovalOfCall(props: { approval: NonNullable<Extract<TimelineEntry, { kind: 'call' }>['approval']>; waitMs: number | null }) {
  const { approval } = props
  const by = approval.ruleId
    ? `by rule ${approval.ruleId}`
    : approval.reason === 'access_control_policy.auto_allow'
      ? 'automatically (auto-allow)'
      : 'by the operator'
  const scope = approval.scope && approval.scope !== 'once' ? ` for the ${approval.scope}` : ''
  return (
    <span className="ag-tl-approval">
      <Hand size={12} aria-hidden="true" /> asked · {approval.status} {by}
      {scope}
      {props.waitMs !== null && ` after ${formatDuration(props.waitMs)}`}
      {approval.status !== 'approved' && approval.reason && (
        <span className="ag-muted">
          {' '}
          · <TextAgent text={approval.reason.replace(/^denied by the operator: /, '')} />
        </span>
      )}
    </span>
  )
}
