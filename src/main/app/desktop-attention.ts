import { app, Menu, nativeImage, Notification, Tray, type BrowserWindow, type NativeImage } from 'electron'
import type { ApprovalView } from '@shared/approvals'
import type { ContractEventListener } from '../ipc'
import { ApprovalAttention, notificationText, trayTooltip, type AttentionItem } from './approval-attention'
import { drawCountBadge } from './tray-badge'

/** What the desktop attention is built from: the queue, the event feed, the window to bring up, the icon. */
export type DesktopAttentionOptions = {
  pending: () => ApprovalView[]
  subscribe: (listener: ContractEventListener) => () => void
  /** The console window (made again if it was closed). */
  window: () => BrowserWindow
  iconPath: string
  log: (message: string, error?: unknown) => void
}

/** The tray icon's size: drawn at 32 px so the badge's digits stay legible; the desktop scales it. */
const traySize = 32

/**
 * The desktop's side of the approval queue (SPEC §11): a tray icon whose tooltip, badge and menu
 * carry the pending count (and the dock or launcher count through `app.setBadgeCount` where the
 * platform has one), and a native notification for each new item; clicking it, or the tray, brings
 * the console window up on `#/approvals`. Returns the disposer.
 */
export function startDesktopAttention(options: DesktopAttentionOptions): () => void {
  const base = nativeImage.createFromPath(options.iconPath).resize({ width: traySize, height: traySize })
  let tray: Tray | undefined
  try {
    tray = new Tray(base)
    tray.on('click', () => openApprovals(options))
  } catch (error) {
    // A desktop without a status area: notifications and the badge count still work.
    options.log('Airlock: no tray icon on this desktop', error)
  }
  // Notifications must stay referenced until they are closed, or a click can arrive at nothing.
  const shown = new Set<Notification>()
  const attention = new ApprovalAttention({
    pending: options.pending,
    subscribe: options.subscribe,
    sink: {
      showCount: (count) => {
        app.setBadgeCount(count)
        if (!tray) return
        tray.setImage(badged(base, count))
        tray.setToolTip(trayTooltip(count))
        if (process.platform === 'darwin') tray.setTitle(count > 0 ? String(count) : '')
        tray.setContextMenu(
          Menu.buildFromTemplate([
            { label: count > 0 ? `Approvals: ${count} waiting` : 'Approvals: none waiting', click: () => openApprovals(options) },
            { label: 'Open Airlock', click: () => focus(options.window()) },
            { type: 'separator' },
            { label: 'Quit Airlock', click: () => app.quit() }
          ])
        )
      },
      notify: (items) => notify(items, options, shown)
    }
  })
  const stop = attention.start()
  return () => {
    stop()
    for (const notification of shown) notification.close()
    tray?.destroy()
  }
}

function notify(items: AttentionItem[], options: DesktopAttentionOptions, shown: Set<Notification>): void {
  if (!Notification.isSupported()) return
  const { title, body } = notificationText(items)
  const notification = new Notification({ title, body })
  shown.add(notification)
  notification.on('click', () => openApprovals(options, items.length === 1 ? items[0]?.id : undefined))
  notification.on('close', () => shown.delete(notification))
  notification.show()
}

/** Brings the window up on the Approvals view (on one item when given); the view reads the hash. */
function openApprovals(options: DesktopAttentionOptions, approvalId?: string): void {
  const window = options.window()
  focus(window)
  const hash = approvalId ? `#/approvals?id=${encodeURIComponent(approvalId)}` : '#/approvals'
  // A hash change stays on the trusted page (will-navigate only guards loads of other URLs).
  window.webContents
    .executeJavaScript(`location.hash = ${JSON.stringify(hash)}`)
    .catch((error: unknown) => options.log('Airlock: could not open the Approvals view', error))
}

function focus(window: BrowserWindow): void {
  if (window.isMinimized()) window.restore()
  window.show()
  window.focus()
}

function badged(base: NativeImage, count: number): NativeImage {
  if (count === 0) return base
  const size = base.getSize()
  if (size.width !== size.height) return base
  return nativeImage.createFromBitmap(drawCountBadge(base.toBitmap(), size.width, count), { width: size.width, height: size.height })
}
