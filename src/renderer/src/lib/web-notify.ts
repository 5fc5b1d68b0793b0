import type { ApprovalView } from '@shared/approvals'
import { visibleText } from '@shared/visible-text'
import { create } from 'zustand'

/** Where this browser keeps the operator's choice (per browser: the desktop app notifies natively, and has its own). */
const preferenceKey = 'airlock.notifications'

/**
 * Browser notifications of new approval requests in the web console (SPEC §11): on unless the
 * operator turned them off in Settings (a choice of this browser, kept in localStorage), and only
 * once the browser's permission was granted — which the console asks for once, from a button
 * (browsers ignore a request that no click made). `permission` is the browser's answer;
 * `supported` is false in the desktop app (native notifications) and where the API is missing.
 */
export const useWebNotifications = create<{ supported: boolean; permission: NotificationPermission; enabled: boolean }>(() => ({
  supported: typeof window !== 'undefined' && !('airlock' in window && window.airlock) && typeof Notification !== 'undefined',
  permission: typeof Notification !== 'undefined' ? Notification.permission : 'denied',
  enabled: typeof localStorage !== 'undefined' ? localStorage.getItem(preferenceKey) !== 'off' : true
}))

/** Turns notifications on or off for this browser. */
export function setNotificationsEnabled(enabled: boolean): void {
  localStorage.setItem(preferenceKey, enabled ? 'on' : 'off')
  useWebNotifications.setState({ enabled })
}

/** Asks the browser's permission (from a click); the answer is kept in the store. */
export async function askNotificationPermission(): Promise<void> {
  if (typeof Notification === 'undefined') return
  const permission = await Notification.requestPermission()
  useWebNotifications.setState({ permission })
}

/** The ids among `now` that were not pending before: what is new to notify about (nothing on the first list). */
export function newRequests(before: ReadonlySet<string> | undefined, now: readonly ApprovalView[]): ApprovalView[] {
  if (before === undefined) return []
  return now.filter((item) => !before.has(item.id))
}

/** A notification's title and body for one new request: who asks, which tool, what (hidden characters escaped). */
export function notificationOf(item: ApprovalView): { title: string; body: string } {
  return { title: `${item.agentId ?? 'An agent'} asks: ${visibleText(item.tool)}`, body: visibleText(item.summary).slice(0, 200) }
}

/** Shows a notification per new request when this browser may; a click brings the console to the request. */
export function notifyNew(items: readonly ApprovalView[]): void {
  const { supported, permission, enabled } = useWebNotifications.getState()
  if (!supported || !enabled || permission !== 'granted') return
  for (const item of items.slice(0, 5)) {
    const { title, body } = notificationOf(item)
    const notification = new Notification(title, { body, tag: item.id })
    notification.onclick = () => {
      window.focus()
      window.location.hash = `#/approvals?id=${encodeURIComponent(item.id)}`
      notification.close()
    }
  }
}
