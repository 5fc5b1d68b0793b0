import type { HistoryRow } from '@shared/ipc/history'
import { formatDuration, formatStarted, inputPreview } from '../lib/history-selectors'
import { BadgeStatus } from './badge-status'

/** The calls, newest first; a row opens its detail. */
export function TableHistory({ rows, selectedId, onSelect }: { rows: HistoryRow[]; selectedId?: string; onSelect: (id: string) => void }) {
  const now = new Date()
  return (
    <table className="table table-history" data-testid="table-history">
      <thead>
        <tr>
          <th>Time</th>
          <th>Agent</th>
          <th>Tool</th>
          <th>Status</th>
          <th>Provider</th>
          <th className="numeric">Exit</th>
          <th className="numeric">Duration</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr
            key={row.seq}
            data-testid={`history-row-${row.id}`}
            className={row.id === selectedId ? 'row-click row-selected' : 'row-click'}
            tabIndex={0}
            onClick={() => onSelect(row.id)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' || event.key === ' ') {
                event.preventDefault()
                onSelect(row.id)
              }
            }}
          >
            <td className="nowrap tabular">
              <time dateTime={row.startedAt} title={row.startedAt}>
                {formatStarted(row.startedAt, now)}
              </time>
            </td>
            <td>{row.agentId ?? <span className="muted">—</span>}</td>
            <td>
              <code>{row.tool}</code>
              <div className="cell-sub" title={inputPreview(row.inputSummary, 400)}>
                {row.error ? <span className="field-error">{row.error.message}</span> : inputPreview(row.inputSummary)}
              </div>
            </td>
            <td>
              <BadgeStatus status={row.status} testId={`history-status-${row.id}`} />
            </td>
            <td>{row.providerId ?? <span className="muted">—</span>}</td>
            <td className="numeric">{row.exitCode ?? <span className="muted">—</span>}</td>
            <td className="numeric nowrap">{formatDuration(row.durationMs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
