import { useEffect } from 'react'
import { filtersFromHash, hashWithFilters, type EventFilters } from '../lib/event-filter'
import { useResourcesStore } from '../store/resources-store'

/**
 * Keeps the event filters in the URL (`#/resources?type=…&q=…`): read on mount and on
 * hashchange, written with `replaceState` so typing does not add history entries or loop.
 */
export function useEventFiltersInUrl(): void {
  const filters = useResourcesStore((state) => state.filters)
  const setFilters = useResourcesStore((state) => state.setFilters)
  useEffect(() => {
    const read = () => setFilters(filtersFromHash(window.location.hash))
    read()
    window.addEventListener('hashchange', read)
    return () => window.removeEventListener('hashchange', read)
  }, [setFilters])
  useEffect(() => writeFilters(filters), [filters])
}

function writeFilters(filters: EventFilters): void {
  if (!window.location.hash.startsWith('#/resources')) return
  const next = hashWithFilters(window.location.hash, filters)
  if (next !== window.location.hash) window.history.replaceState(window.history.state, '', next)
}
