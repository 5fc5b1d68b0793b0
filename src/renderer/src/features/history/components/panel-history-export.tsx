import { Download, X } from 'lucide-react'
import { Button, ErrorBanner, IconButton } from '../../../ui'
import { callsText, formatCount } from '../lib/format'
import { useHistoryStore } from '../store/history-store'

/** The export's progress (rows gathered of the count, with cancel) and how it ended. Renders nothing when idle. */
export function PanelHistoryExport() {
  const exporting = useHistoryStore((state) => state.exporting)
  const cancel = useHistoryStore((state) => state.cancelExport)
  const dismiss = useHistoryStore((state) => state.dismissExport)
  if (exporting.status === 'idle') return null
  if (exporting.status === 'error')
    return (
      <ErrorBanner
        message={`The export stopped after ${callsText(exporting.rows)}: ${exporting.error.message}`}
        onDismiss={dismiss}
        testId="history-export-progress"
      />
    )
  const running = exporting.status === 'running'
  const total = running ? exporting.total : undefined
  const percent = total ? Math.min(100, Math.round((exporting.rows / Math.max(total, 1)) * 100)) : undefined
  return (
    <div className={`history-export history-export-${exporting.status}`} role="status" data-testid="history-export-progress">
      <Download size={14} aria-hidden="true" />
      <span className="history-export-text">
        {running && (
          <>
            Exporting {formatCount(exporting.rows)}
            {total !== undefined ? ` of ${callsText(total)}` : ' calls'} as JSON Lines…
          </>
        )}
        {exporting.status === 'done' && (
          <>
            Saved {callsText(exporting.rows)} to <code>{exporting.fileName}</code>
          </>
        )}
        {exporting.status === 'cancelled' && <>Export cancelled after {callsText(exporting.rows)}; nothing was saved.</>}
      </span>
      {running && (
        <progress className="history-export-bar" max={100} value={percent} aria-label="Export progress">
          {percent ?? 0}%
        </progress>
      )}
      {running ? (
        <Button size="sm" variant="secondary" onClick={cancel} data-testid="history-export-cancel">
          Cancel
        </Button>
      ) : (
        <IconButton label="Dismiss" icon={<X size={14} />} onClick={dismiss} />
      )}
    </div>
  )
}
