import { useEffect, useState } from 'react'
import { viewFromHash, type ViewId } from './views'

/** The current view, kept in the URL hash so reloads and links keep their place. */
export function useView(): [ViewId, (view: ViewId) => void] {
  const [view, setView] = useState(() => viewFromHash(window.location.hash))
  useEffect(() => {
    const onHashChange = () => setView(viewFromHash(window.location.hash))
    window.addEventListener('hashchange', onHashChange)
    return () => window.removeEventListener('hashchange', onHashChange)
  }, [])
  return [view, (next) => (window.location.hash = `#/${next}`)]
}
