import { useEffect, useState } from 'react'
import { approvalsHash, readApprovalsQuery, type ApprovalsQuery } from '../lib/view-query'
import { useApprovalsStore } from '../store/approvals-store'

/**
 * Keeps the view's tab and selected item in the URL (`#/approvals?id=…`, `#/approvals?tab=rules`)
 * without a hashchange loop (`history.replaceState`), and follows links that change it while the
 * view is open (the History drawer's approval link opens that item, read-only once decided).
 */
export function useApprovalsQuery(): [ApprovalsQuery['tab'], (tab: ApprovalsQuery['tab']) => void] {
  const [tab, setTab] = useState<ApprovalsQuery['tab']>(() => readApprovalsQuery(window.location.hash).tab)
  const selectedId = useApprovalsStore((state) => state.selectedId)

  useEffect(() => {
    const follow = () => {
      const query = readApprovalsQuery(window.location.hash)
      setTab(query.tab)
      const store = useApprovalsStore.getState()
      if (query.id && query.id !== store.selectedId) void store.select(query.id)
      // A link to the bare queue leaves an item shown read-only.
      else if (!query.id && query.tab === 'queue') store.backToQueue()
    }
    follow()
    window.addEventListener('hashchange', follow)
    return () => window.removeEventListener('hashchange', follow)
  }, [])

  useEffect(() => {
    if (!window.location.hash.startsWith('#/approvals')) return
    // The store's selection now, not this render's: a link followed in this same commit already moved it.
    const hash = approvalsHash({ tab, id: useApprovalsStore.getState().selectedId })
    if (hash !== window.location.hash) history.replaceState(history.state, '', hash)
  }, [tab, selectedId])

  return [tab, setTab]
}
