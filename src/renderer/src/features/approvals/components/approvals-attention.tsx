import { useEffect, useRef } from 'react'
import { CountBadge } from '../../../ui'
import { badgeLabel, titleFor } from '../lib/attention'
import { newRequests, notifyNew } from '../../../lib/web-notify'
import { useApprovalsStore } from '../store/approvals-store'

/**
 * Draws no UI: keeps the window title (`(3) Airlock`) and the favicon badge in step with the
 * pending count, wherever the operator is in the console, and in the web console shows a browser
 * notification per new request (`web-notify.ts`). Mount it once, in the shell.
 */
export function ApprovalsAttention() {
  const pending = usePendingCount()
  const items = useApprovalsStore((state) => state.items)
  const ready = useApprovalsStore((state) => state.queueStatus === 'ready')
  const known = useRef<Set<string> | undefined>(undefined)
  useEffect(() => {
    document.title = titleFor(pending)
    setFavicon(pending)
  }, [pending])
  useEffect(() => {
    if (!ready) return
    notifyNew(newRequests(known.current, items))
    known.current = new Set([...(known.current ?? []), ...items.map((item) => item.id)])
  }, [items, ready])
  return null
}

/** The pending count for the navigation (`nav-approvals-count`); hidden at zero. */
export function PendingApprovalsCount() {
  const pending = usePendingCount()
  return <CountBadge count={pending} label="pending approvals" testId="nav-approvals-count" />
}

/** The pending count from the host, loading the queue the first time any consumer mounts. */
function usePendingCount(): number {
  const pending = useApprovalsStore((state) => state.items.length)
  const status = useApprovalsStore((state) => state.queueStatus)
  const refresh = useApprovalsStore((state) => state.refreshQueue)
  useEffect(() => {
    if (status === 'idle') void refresh()
  }, [status, refresh])
  return pending
}

/** Draws the favicon: the brand mark, with the count on a badge when something waits (colours from the theme tokens). */
function setFavicon(pending: number): void {
  const canvas = document.createElement('canvas')
  canvas.width = canvas.height = 64
  const context = canvas.getContext('2d')
  if (!context) return
  const token = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim()
  const gradient = context.createLinearGradient(0, 0, 64, 64)
  gradient.addColorStop(0, token('--accent') || 'blue')
  gradient.addColorStop(1, token('--brand-2') || 'purple')
  context.fillStyle = gradient
  context.beginPath()
  context.roundRect(6, 6, 52, 52, 14)
  context.fill()
  const label = badgeLabel(pending)
  if (label) {
    const width = label.length === 1 ? 36 : label.length === 2 ? 46 : 58
    // The strongest red of the theme under light text: dark themes' bad-line, light themes' bad-fg.
    const light = getComputedStyle(document.documentElement).colorScheme === 'light'
    context.fillStyle = token(light ? '--bad-fg' : '--bad-line') || 'red'
    context.beginPath()
    context.roundRect(64 - width, 0, width, 36, 18)
    context.fill()
    context.fillStyle = token(light ? '--on-accent' : '--bad-fg') || 'white'
    context.font = `bold ${label.length > 2 ? 22 : 26}px system-ui, sans-serif`
    context.textAlign = 'center'
    context.textBaseline = 'middle'
    context.fillText(label, 64 - width / 2, 19)
  }
  let link = document.querySelector<HTMLLinkElement>('link[rel="icon"]')
  if (!link) {
    link = document.createElement('link')
    link.rel = 'icon'
    document.head.appendChild(link)
  }
  link.href = canvas.toDataURL('image/png')
}
