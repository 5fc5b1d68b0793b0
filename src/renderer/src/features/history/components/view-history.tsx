import { useEffect } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { CardEmptyState } from '../../../app/card-empty-state'
import { ViewHeader } from '../../../app/view-header'
import { hasFilters, verificationText } from '../lib/history-selectors'
import { useHistoryStore } from '../store/history-store'
import { PaneHistoryDetail } from './pane-history-detail'
import { TableHistory } from './table-history'
import { ToolbarHistory } from './toolbar-history'

/** The History view: every recorded call, newest first, with filters, a detail pane and the chain check. */
export function HistoryView() {
  const { rows, nextCursor, filters, status, error, loadingMore, selectedId, verification, verifyError, load, loadMore, select } = useHistoryStore(
    useShallow((state) => ({
      rows: state.rows,
      nextCursor: state.nextCursor,
      filters: state.filters,
      status: state.status,
      error: state.error,
      loadingMore: state.loadingMore,
      selectedId: state.selectedId,
      verification: state.verification,
      verifyError: state.verifyError,
      load: state.load,
      loadMore: state.loadMore,
      select: state.select
    }))
  )
  useEffect(() => {
    if (status === 'idle') void load()
  }, [status, load])
  const filtered = hasFilters(filters)
  const empty = status === 'ready' && rows.length === 0 && !filtered
  return (
    <div className={selectedId ? 'with-drawer' : undefined}>
      <ViewHeader title="History" subtitle="Every file write, command, code run, query, browse and MCP call an agent makes is recorded here." />
      {error && (
        <div className="banner banner-error" role="alert" data-testid="history-error">
          {error}
        </div>
      )}
      {empty ? (
        <CardEmptyState title="No actions recorded" testId="empty-history">
          <p>
            Each action call appears here with its agent, tool, status, provider, isolation facts, output and duration, newest first, and can be
            filtered and exported.
          </p>
          <p>Nothing has run through this Airlock home yet.</p>
        </CardEmptyState>
      ) : (
        status !== 'idle' && (
          <>
            <ToolbarHistory />
            {verifyError && (
              <div className="banner banner-error" role="alert" data-testid="history-verification">
                The chain could not be verified: {verifyError}
              </div>
            )}
            {verification && (
              <div className={`banner ${verification.ok ? 'banner-ok' : 'banner-error'}`} role="status" data-testid="history-verification">
                {verificationText(verification)}
              </div>
            )}
            {rows.length > 0 ? (
              <TableHistory rows={rows} selectedId={selectedId} onSelect={(id) => void select(id)} />
            ) : (
              <p className="muted no-match" data-testid="history-no-match">
                {status === 'loading' ? 'Loading…' : 'No calls match these filters.'}
              </p>
            )}
            <div className="table-footer">
              <span className="muted small" data-testid="history-count">
                {rows.length} {rows.length === 1 ? 'call' : 'calls'} shown{nextCursor !== undefined ? ', more below' : ''}
              </span>
              {nextCursor !== undefined && (
                <button type="button" className="button-secondary" data-testid="history-load-more" disabled={loadingMore} onClick={() => void loadMore()}>
                  {loadingMore ? 'Loading…' : 'Load more'}
                </button>
              )}
            </div>
          </>
        )
      )}
      <PaneHistoryDetail />
    </div>
  )
}
