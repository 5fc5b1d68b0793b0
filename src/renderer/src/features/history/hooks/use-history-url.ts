import { useEffect } from 'react'
import { queryOf, urlStateOf } from '../lib/filters'
import { useHistoryStore } from '../store/history-store'

const viewPrefix = '#/history'

/**
 * Keeps the History view's filters and open call in the URL (`#/history?agent=…&id=…`): the URL
 * is read when the view opens and on every hash change (a link, back/forward), and rewritten with
 * `history.replaceState` when the operator changes a filter or opens a call (no hashchange loop).
 */
export function useHistoryUrl(): void {
  useEffect(() => {
    const store = useHistoryStore
    const read = () => {
      if (!window.location.hash.startsWith(viewPrefix)) return
      const { filters, id } = urlStateOf(window.location.hash.split('?')[1] ?? '')
      const wasReady = store.getState().status === 'ready'
      void store.getState().setFilters(filters)
      // Back on the view with the same filters: the cached rows are shown at once and brought up to date.
      if (wasReady && store.getState().status === 'ready') void store.getState().refreshTop()
      if (id) void store.getState().select(id)
      else store.getState().closeDetail()
    }
    const write = () => {
      if (!window.location.hash.startsWith(viewPrefix)) return
      const { filters, selectedId } = store.getState()
      const query = queryOf({ filters, id: selectedId })
      const hash = `${viewPrefix}${query ? `?${query}` : ''}`
      if (hash !== window.location.hash) window.history.replaceState(window.history.state, '', hash)
    }
    read()
    write()
    window.addEventListener('hashchange', read)
    const unsubscribe = store.subscribe((state, previous) => {
      if (state.filters !== previous.filters || state.selectedId !== previous.selectedId) write()
    })
    return () => {
      window.removeEventListener('hashchange', read)
      unsubscribe()
    }
  }, [])
}
