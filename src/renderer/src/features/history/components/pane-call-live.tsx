import type { HistoryDetail } from '@shared/ipc/history'
import { CircleStop, Hourglass, Radio } from 'lucide-react'
import { useEffect, useLayoutEffect, useMemo, useRef } from 'react'
import { Button, ErrorBanner, TextAgent, useNow } from '../../../ui'
import { segmentClass, ansiLines } from '../lib/ansi'
import { formatCount, formatElapsed } from '../lib/format'
import { useHistoryStore } from '../store/history-store'
import { SectionCall } from './section-call'

/** The most lines the live pane draws (the newest); the whole output is in the record once the call ends. */
const drawnLines = 500

/**
 * A running call as it runs: how long it has waited or run, its output as it arrives (stdout and
 * stderr in the order they came, stderr marked; colours kept, control characters shown escaped;
 * the newest 500 lines drawn, the box following the end unless the operator scrolled up), and
 * Cancel, which ends it as the agent's own cancellation would.
 */
export function PaneCallLive({ detail }: { detail: HistoryDetail }) {
  const live = useHistoryStore((state) => state.live)
  const watchLive = useHistoryStore((state) => state.watchLive)
  const cancelCall = useHistoryStore((state) => state.cancelCall)
  const now = useNow(1000)
  useEffect(() => {
    void watchLive(detail.id)
  }, [detail.id, watchLive])
  const mine = live?.id === detail.id ? live : undefined
  const lines = mine?.lines ?? []
  const shown = lines.slice(-drawnLines)
  const hidden = (mine?.skipped ?? 0) + lines.length - shown.length
  const drawn = useMemo(() => shown.map((line) => ({ n: line.n, stderr: line.stream === 'stderr', runs: ansiLines(line.text)[0] ?? [] })), [shown])
  const box = useRef<HTMLDivElement>(null)
  const following = useRef(true)
  useLayoutEffect(() => {
    const element = box.current
    if (element && following.current) element.scrollTop = element.scrollHeight
  }, [drawn])
  const waiting = detail.status === 'waiting_approval'
  const since = waiting && detail.waitingSince ? detail.waitingSince : detail.startedAt
  const elapsed = Math.max(0, now - Date.parse(since))
  return (
    <SectionCall
      title="Live output"
      testId="history-live"
      aside={
        <Button
          variant="secondary"
          size="sm"
          icon={<CircleStop size={14} aria-hidden="true" />}
          busy={mine?.cancelling === true}
          disabled={mine?.running === false}
          onClick={() => void cancelCall(detail.id)}
          data-testid="history-live-cancel"
          title="End this call now: the agent gets `cancelled`, and history records that the operator cancelled it"
        >
          Cancel call
        </Button>
      }
    >
      <p className="history-live-state" data-testid="history-live-state">
        {waiting ? <Hourglass size={14} aria-hidden="true" /> : <Radio size={14} aria-hidden="true" className="history-live-pulse" />}
        <span>
          {waiting ? 'Waiting for your approval' : 'Running'} for <span className="history-mono">{formatElapsed(elapsed)}</span>
          {waiting && (
            <>
              {' — decide it in '}
              <a href="#/approvals">Approvals</a>; the run time will not include this wait.
            </>
          )}
        </span>
      </p>
      {mine?.error && <ErrorBanner message={mine.error.message} testId="history-live-error" />}
      {mine?.cancelError && <ErrorBanner message={mine.cancelError.message} testId="history-live-cancel-error" />}
      {hidden > 0 && (
        <p className="history-dim history-live-hidden" data-testid="history-live-hidden">
          {formatCount(hidden)} earlier {hidden === 1 ? 'line is' : 'lines are'} not shown here; the whole output is in the record when the call ends.
        </p>
      )}
      {drawn.length === 0 ? (
        !waiting && <p className="history-dim history-empty-output">No output yet.</p>
      ) : (
        <div
          className="history-log history-live-log"
          ref={box}
          tabIndex={0}
          role="log"
          aria-live="off"
          aria-label="Output of this call as it runs"
          data-testid="history-live-lines"
          onScroll={(event) => {
            const element = event.currentTarget
            following.current = element.scrollHeight - element.scrollTop - element.clientHeight < 24
          }}
        >
          {drawn.map((line) => (
            <div key={line.n} className={`history-log-line${line.stderr ? ' history-log-stderr' : ''}`} data-testid="history-live-line">
              <span className="history-log-no" aria-hidden="true">
                {line.n}
              </span>
              <span className="history-log-text">
                {line.stderr && <span className="visually-hidden">stderr: </span>}
                {line.runs.map((segment, index) => (
                  <span key={index} className={segmentClass(segment)}>
                    <TextAgent text={segment.text} multiline />
                  </span>
                ))}
              </span>
            </div>
          ))}
        </div>
      )}
    </SectionCall>
  )
}
