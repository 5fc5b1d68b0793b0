import { useEffect, useRef } from 'react'
import { triageActionOf, type TriageAction } from '../lib/triage-keys'

/**
 * Binds the queue's keys (j/k, a, s, r, d, ?) on the window while `enabled`. A key is ignored
 * while the operator types or while any dialog is open (the view's own, or another's on the page),
 * so no keystroke meant for a field ever decides a request.
 */
export function useTriageKeys(enabled: boolean, dialogOpen: boolean, onAction: (action: TriageAction) => void): void {
  const latest = useRef(onAction)
  latest.current = onAction
  useEffect(() => {
    if (!enabled) return
    const onKeyDown = (event: KeyboardEvent) => {
      const anyDialog = dialogOpen || document.querySelector('[role="dialog"], [role="alertdialog"]') !== null
      const action = triageActionOf(event, { dialogOpen: anyDialog })
      if (!action) return
      event.preventDefault()
      latest.current(action)
    }
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [enabled, dialogOpen])
}
