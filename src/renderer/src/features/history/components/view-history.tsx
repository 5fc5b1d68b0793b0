import { Download, History, ShieldCheck } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Button, EmptyState, ErrorBanner, Loading, ViewHeader } from '../../../ui'
import { useHistoryUrl } from '../hooks/use-history-url'
import { verificationText } from '../lib/call-facts'
import { hasFilters, noFilters } from '../lib/filters'
import { callsText, formatCount } from '../lib/format'
import { useHistoryStore } from '../store/history-store'
import { DrawerHistoryCall } from './drawer-history-call'
import { PanelHistoryExport } from './panel-history-export'
import { TableHistory } from './table-history'
import { ToolbarHistoryFilters } from './toolbar-history-filters'
import '../history.css'

/** The History view: every recorded call, newest first, filtered from the URL, with live rows, a detail drawer, export and the chain check. */
export function HistoryView() {
  useHistoryUrl()
  const { status, error, rowCount, filtered, drawerOpen, verifying, exporting, refreshOptions, load, verify, startExport } = useHistoryStore(
    useShallow((state) => ({
      status: state.status,
      error: state.error?.message,
      rowCount: state.rows.length,
      filtered: hasFilters(state.filters),
      drawerOpen: state.selectedId !== undefined,
      verifying: state.verifying,
      exporting: state.exporting.status === 'running',
      refreshOptions: state.refreshOptions,
      load: state.load,
      verify: state.verify,
      startExport: state.startExport
    }))
  )
  // The filter menus learn the registered agents and providers once the first page is on screen.
  const askedOptions = useRef(false)
  useEffect(() => {
    if (status !== 'ready' || askedOptions.current) return
    askedOptions.current = true
    void refreshOptions()
  }, [status, refreshOptions])

  const count = useHistoryStore((state) => state.count)
  const nothingYet = status === 'ready' && rowCount === 0 && !filtered
  return (
    <div className={`history-view${drawerOpen ? ' has-drawer' : ''}`}>
      <ViewHeader
        title="History"
        subtitle="Every call an agent makes, newest first and live, hash-chained so tampering shows."
        actions={
          <>
            <Button
              icon={<ShieldCheck size={15} />}
              busy={verifying}
              onClick={() => void verify()}
              data-testid="history-verify"
              title="Re-hash every recorded call and log file and check the chain"
            >
              {verifying ? 'Verifying…' : 'Verify chain'}
            </Button>
            <Button
              icon={<Download size={15} />}
              disabled={exporting || nothingYet || status !== 'ready'}
              onClick={() => void startExport()}
              data-testid="history-export"
              title={`Download ${count !== undefined ? `the ${callsText(count)}` : 'the calls'} ${filtered ? 'matching the filters ' : ''}as JSON Lines`}
            >
              Export JSONL
            </Button>
          </>
        }
      />
      <Verification />
      <PanelHistoryExport />
      {nothingYet ? (
        <EmptyState title="No calls recorded yet" testId="empty-history" icon={<History size={22} />}>
          <p>
            Each call an agent makes appears here live: its tool, input, status, provider and isolation, output and duration, hash-chained so tampering shows.
          </p>
          <p>
            Create an agent in <a href="#/agents">Agents</a>, paste its connection snippet into your MCP client (or run{' '}
            <code className="history-nowrap">airlock agent create</code>), and its first call will land at the top of this list.
          </p>
        </EmptyState>
      ) : (
        <>
          <ToolbarHistoryFilters />
          <CountLine />
          {error && <ErrorBanner message={error} onRetry={() => void load()} testId="history-error" />}
          {status === 'loading' && rowCount === 0 && <Loading label="Reading history…" testId="history-loading" />}
          {status === 'ready' && rowCount === 0 && filtered && <NoMatch />}
          {rowCount > 0 && <TableHistory />}
          <FooterHistory />
        </>
      )}
      <DrawerHistoryCall />
    </div>
  )
}

/** How many calls match (from `history.count`) and how many of them are loaded. */
function CountLine() {
  const { count, countError, rows, filtered, loading } = useHistoryStore(
    useShallow((state) => ({
      count: state.count,
      countError: state.countError?.message,
      rows: state.rows.length,
      filtered: hasFilters(state.filters),
      loading: state.status === 'loading'
    }))
  )
  return (
    <div className="history-countline" data-testid="history-countline" data-loaded={rows}>
      {count !== undefined ? (
        <span className="history-count" data-testid="history-count" data-count={count} aria-live="polite">
          <strong>{callsText(count)}</strong>
          {filtered ? (count === 1 ? ' matches these filters' : ' match these filters') : ' recorded'}
        </span>
      ) : countError ? (
        <span className="history-error-text" data-testid="history-count">
          Count unavailable: {countError}
        </span>
      ) : (
        <span className="history-dim">Counting…</span>
      )}
      <span className="history-dim">{loading ? 'Loading…' : `${formatCount(rows)} loaded · newest first · live`}</span>
    </div>
  )
}

/** Below the table: the next page loading, a page that failed, or the end of the history. */
function FooterHistory() {
  const { hasMore, loadingMore, moreError, rows, status, loadMore } = useHistoryStore(
    useShallow((state) => ({
      hasMore: state.nextCursor !== undefined,
      loadingMore: state.loadingMore,
      moreError: state.moreError?.message,
      rows: state.rows.length,
      status: state.status,
      loadMore: state.loadMore
    }))
  )
  if (status !== 'ready' || rows === 0) return null
  return (
    <div className="history-footer" data-testid="history-footer">
      {moreError ? (
        <ErrorBanner message={`The next page could not be read: ${moreError}`} onRetry={() => void loadMore()} />
      ) : loadingMore ? (
        <span className="history-dim">Loading the next page…</span>
      ) : hasMore ? (
        <span className="history-dim">Scroll for older calls.</span>
      ) : (
        <span className="history-dim" data-testid="history-end">
          {rows === 1 ? 'End of history: 1 call.' : `End of history: all ${callsText(rows)} loaded.`}
        </span>
      )}
    </div>
  )
}

/** The filters answered nothing: say so and offer to clear them. */
function NoMatch() {
  const setFilters = useHistoryStore((state) => state.setFilters)
  return (
    <div className="history-no-match" data-testid="history-no-match">
      <p>No calls match these filters.</p>
      <Button size="sm" onClick={() => void setFilters(noFilters)}>
        Clear filters
      </Button>
    </div>
  )
}

/** The last chain check as a banner (intact or where it broke), or why it could not run. */
function Verification() {
  const verification = useHistoryStore((state) => state.verification)
  const verifyError = useHistoryStore((state) => state.verifyError?.message)
  if (verifyError) return <ErrorBanner message={`The chain could not be verified: ${verifyError}`} testId="history-verification" />
  if (!verification) return null
  return (
    <div className={`history-verification ${verification.ok ? 'is-ok' : 'is-bad'}`} role="status" data-testid="history-verification">
      <ShieldCheck size={15} aria-hidden="true" />
      {verificationText(verification)}
    </div>
  )
}
