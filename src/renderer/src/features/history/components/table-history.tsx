import { useVirtualizer } from '@tanstack/react-virtual'
import { ArrowUp } from 'lucide-react'
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { useNow } from '../../../ui'
import { callsText } from '../lib/format'
import { rowsAbove } from '../lib/rows'
import { useHistoryStore } from '../store/history-store'
import { historyColumns, historyRowHeight, RowHistory } from './row-history'

/** Start loading the next page when the last row drawn is this close to the end of what is loaded. */
const prefetchRows = 150
/** Rows drawn beyond the visible ones on each side (the DOM holds visible + 2 × this). */
const overscanRows = 10

/**
 * The calls, newest first, as a virtualised grid: only the rows in view (plus overscan) are in the
 * DOM, and the next page (cursor paging) is fetched as the scroll nears the loaded end. Calls that
 * arrive while the operator is scrolled down are added above without moving what they look at.
 * Keys: ↑/↓ or j/k move, Home/End, PageUp/PageDown, Enter opens.
 */
export function TableHistory() {
  const { rows, hasMore, selectedId, resultId, count, reloading, loadMore, select } = useHistoryStore(
    useShallow((state) => ({
      rows: state.rows,
      reloading: state.status === 'loading',
      hasMore: state.nextCursor !== undefined,
      selectedId: state.selectedId,
      resultId: state.resultId,
      count: state.count,
      loadMore: state.loadMore,
      select: state.select
    }))
  )
  const scrollRef = useRef<HTMLDivElement>(null)
  const [active, setActive] = useState(0)
  const [newAbove, setNewAbove] = useState(0)
  // Ages and waits stay true while the view is open: every second while a call waits for approval, else every minute.
  const tick = useNow(rows.some((row) => row.status === 'waiting_approval') ? 1000 : 60_000)
  const now = useMemo(() => new Date(tick), [tick])
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => historyRowHeight,
    overscan: overscanRows,
    getItemKey: (index) => rows[index]!.seq
  })
  const items = virtualizer.getVirtualItems()
  const lastDrawn = items.length > 0 ? items[items.length - 1]!.index : 0

  useEffect(() => {
    if (hasMore && lastDrawn >= rows.length - prefetchRows) void loadMore()
  }, [hasMore, lastDrawn, rows.length, loadMore])

  // Keep the operator's place: rows that came in on top push the scroll down by their height.
  const anchor = useRef<{ resultId: number; firstSeq?: number }>({ resultId })
  useLayoutEffect(() => {
    const element = scrollRef.current
    const before = anchor.current
    anchor.current = { resultId, firstSeq: rows[0]?.seq }
    if (!element) return
    if (before.resultId !== resultId) {
      element.scrollTop = 0
      setNewAbove(0)
      setActive(0)
      return
    }
    const added = rowsAbove(rows, before.firstSeq)
    if (added === 0) return
    setActive((index) => index + added)
    if (element.scrollTop > 0) {
      element.scrollTop += added * historyRowHeight
      setNewAbove((n) => n + added)
    }
  }, [rows, resultId])

  const onScroll = () => {
    if (newAbove > 0 && (scrollRef.current?.scrollTop ?? 0) < historyRowHeight) setNewAbove(0)
  }

  const open = useCallback(
    (id: string, index: number) => {
      setActive(index)
      void select(id)
    },
    [select]
  )

  const moveTo = (index: number) => {
    const next = Math.max(0, Math.min(rows.length - 1, index))
    setActive(next)
    virtualizer.scrollToIndex(next, { align: 'auto' })
    // The row may be drawn a frame or two after the scroll: focus it once it is there.
    const focus = (tries: number) => {
      const element = scrollRef.current?.querySelector<HTMLElement>(`[data-index="${next}"]`)
      if (element) element.focus({ preventScroll: true })
      else if (tries > 0) requestAnimationFrame(() => focus(tries - 1))
    }
    requestAnimationFrame(() => focus(10))
  }

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey || rows.length === 0) return
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 300) / historyRowHeight) - 1)
    const moves: Record<string, number> = {
      ArrowDown: active + 1,
      j: active + 1,
      ArrowUp: active - 1,
      k: active - 1,
      PageDown: active + page,
      PageUp: active - page,
      Home: 0,
      End: rows.length - 1
    }
    if (event.key in moves) {
      event.preventDefault()
      moveTo(moves[event.key]!)
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault()
      const row = rows[active]
      if (row) open(row.id, active)
    }
  }

  // The row that takes Tab: the active one while it is drawn, else the first one drawn.
  const tabbable = items.some((item) => item.index === active) ? active : items[0]?.index
  return (
    <div
      className={`history-grid${reloading ? ' is-reloading' : ''}`}
      role="grid"
      aria-busy={reloading}
      aria-label="Recorded calls, newest first"
      aria-rowcount={count !== undefined ? count + 1 : -1}
      aria-colcount={historyColumns.length}
      aria-readonly="true"
      data-testid="table-history"
    >
      <div role="rowgroup" className="history-grid-head">
        <div role="row" aria-rowindex={1} className="history-row history-row-head">
          {historyColumns.map((name) => (
            <div key={name} role="columnheader" className={`history-cell${name === 'Exit' || name === 'Run time' ? ' history-num' : ''}`}>
              {name}
            </div>
          ))}
        </div>
      </div>
      {newAbove > 0 && (
        <button type="button" className="history-new-above" data-testid="history-new-rows" onClick={() => moveTo(0)}>
          <ArrowUp size={14} aria-hidden="true" /> {callsText(newAbove).replace('call', 'new call')}
        </button>
      )}
      <div className="history-grid-scroll" ref={scrollRef} onScroll={onScroll} onKeyDown={onKeyDown} data-testid="history-scroll">
        <div role="rowgroup" className="history-grid-body" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = rows[item.index]!
            return (
              <RowHistory
                key={item.key}
                row={row}
                index={item.index}
                top={item.start}
                selected={row.id === selectedId}
                active={item.index === tabbable}
                now={now}
                onOpen={open}
              />
            )
          })}
        </div>
      </div>
    </div>
  )
}
