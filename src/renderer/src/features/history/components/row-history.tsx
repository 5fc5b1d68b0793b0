import type { HistoryRow } from '@shared/ipc/history'
import { visibleText } from '@shared/visible-text'
import { memo } from 'react'
import { Badge, TextAgent } from '../../../ui'
import { callHidesText } from '../lib/call-facts'
import { formatDuration, formatElapsed, formatStarted, formatTimestamp, inputPreview, runTime } from '../lib/format'
import { LabelHistoryStatus } from './label-history-status'

/** The columns of the History table, in order (the header and every row share them through CSS grid). */
export const historyColumns = ['Status', 'Started', 'Agent', 'Tool', 'Input and error', 'Provider', 'Exit', 'Run time'] as const

/** Height of one table row in px (fixed, so the virtualiser never measures). */
export const historyRowHeight = 30

/**
 * One call as a table row: absolutely placed at `top` by the virtualiser; a click or Enter opens
 * it. The agent's text is drawn with `TextAgent`, and a call whose text hides characters says so.
 */
export const RowHistory = memo(function RowHistory(props: {
  row: HistoryRow
  index: number
  top: number
  selected: boolean
  active: boolean
  now: Date
  onOpen(id: string, index: number): void
}) {
  const { row } = props
  // The input always (what was blocked or failed is what the operator looks for), the error beside it.
  const summary = inputPreview(row.inputSummary)
  const hides = callHidesText(row)
  return (
    <div
      role="row"
      aria-rowindex={props.index + 2}
      aria-selected={props.selected}
      tabIndex={props.active ? 0 : -1}
      data-index={props.index}
      data-testid={`history-row-${row.id}`}
      className={`history-row${props.selected ? ' is-selected' : ''}${row.error ? ' has-error' : ''}`}
      style={{ transform: `translateY(${props.top}px)` }}
      onClick={() => props.onOpen(row.id, props.index)}
    >
      <div role="gridcell" className="history-cell">
        <LabelHistoryStatus status={row.status} exitCode={row.exitCode} testId={`history-status-${row.id}`} />
      </div>
      <div role="gridcell" className="history-cell history-mono history-dim">
        <time dateTime={row.startedAt} title={formatTimestamp(row.startedAt)}>
          {formatStarted(row.startedAt, props.now)}
        </time>
      </div>
      <div role="gridcell" className="history-cell history-clip" title={row.agentId ?? undefined}>
        {row.agentId ?? <span className="history-dim">—</span>}
      </div>
      <div role="gridcell" className="history-cell history-mono history-tool history-clip" title={visibleText(row.tool)}>
        <TextAgent text={row.tool} />
      </div>
      <div
        role="gridcell"
        className="history-cell history-mono history-clip history-dim"
        title={visibleText(`${inputPreview(row.inputSummary, 600)}${row.error ? `\n${row.error.code}: ${row.error.message}` : ''}`)}
      >
        {hides && (
          <span className="history-hidden-flag">
            <Badge
              tone="bad"
              title="This call's input or error holds hidden characters (bidi controls, zero-width characters, escapes): shown escaped and marked"
              testId={`history-hidden-${row.id}`}
            >
              hidden characters
            </Badge>
          </span>
        )}
        <TextAgent text={summary} />
        {row.error && (
          <span className="history-error-text history-row-error" data-testid={`history-error-${row.id}`}>
            <TextAgent text={row.error.message} />
          </span>
        )}
      </div>
      <div role="gridcell" className="history-cell history-clip">
        {row.providerId ?? <span className="history-dim">—</span>}
      </div>
      <div role="gridcell" className={`history-cell history-mono history-num${row.exitCode !== null && row.exitCode !== 0 ? ' history-error-text' : ''}`}>
        {row.exitCode ?? <span className="history-dim">—</span>}
      </div>
      <div role="gridcell" className="history-cell history-mono history-num history-dim" title={durationTitle(row)} data-testid={`history-duration-${row.id}`}>
        {row.status === 'waiting_approval' && row.waitingSince
          ? `waiting ${formatElapsed(props.now.getTime() - Date.parse(row.waitingSince))}`
          : formatDuration(runTime(row))}
      </div>
    </div>
  )
})

/** The run time's hover: the wait for an approval beside it, when there was one. */
function durationTitle(row: HistoryRow): string | undefined {
  if (row.status === 'waiting_approval') return 'Waiting for your approval: the run time starts when it is decided'
  if (row.waitMs === null) return undefined
  return `Waited ${formatDuration(row.waitMs)} for approval, then ran ${formatDuration(runTime(row))} (${formatDuration(row.durationMs)} in all)`
}
