import { useCallback, useEffect, useState } from 'react'
import { agentsHash, readAgentsQuery, type AgentsQuery } from '../lib/agents-url'

/**
 * The Agents view's state in the URL (`#/agents?agent=&tab=&file=`): read on load and on every
 * hash change (links, back/forward); written with `replaceState` so no hashchange loop starts.
 * Only while the URL is in the Agents view: once the operator navigates away, a late update
 * (a selection effect on unmount) must not pull the URL back to `#/agents`.
 */
export function useAgentsQuery(): [AgentsQuery, (change: Partial<AgentsQuery>) => void] {
  const [query, setQuery] = useState(() => readAgentsQuery(window.location.hash))
  useEffect(() => {
    const onHashChange = () => {
      if (inAgentsView()) setQuery(readAgentsQuery(window.location.hash))
    }
    window.addEventListener('hashchange', onHashChange)
    return () => window.removeEventListener('hashchange', onHashChange)
  }, [])
  const update = useCallback((change: Partial<AgentsQuery>) => {
    if (!inAgentsView()) return
    setQuery((current) => {
      const next = { ...current, ...change }
      const hash = agentsHash(next)
      if (hash !== window.location.hash) window.history.replaceState(window.history.state, '', `${window.location.pathname}${window.location.search}${hash}`)
      return next
    })
  }, [])
  return [query, update]
}

function inAgentsView(): boolean {
  const hash = window.location.hash
  return hash === '' || hash === '#/' || hash === '#/agents' || hash.startsWith('#/agents?')
}
