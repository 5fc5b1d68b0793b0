import { BellRing } from 'lucide-react'
import { Button } from '../../../ui'
import { askNotificationPermission, setNotificationsEnabled, useWebNotifications } from '../../../lib/web-notify'

/**
 * In the web console, once: an offer to be notified of new requests while the tab is not in view
 * (the browser's permission is asked from this click, never unprompted). Gone once the browser
 * answered or the operator said no here (Settings turns it back on).
 */
export function NoteNotifications() {
  const { supported, permission, enabled } = useWebNotifications()
  if (!supported || !enabled || permission !== 'default') return null
  return (
    <div className="appr-notify-offer" role="note" data-testid="approvals-notify-offer">
      <BellRing size={15} aria-hidden="true" />
      <span>Get a browser notification when an agent asks, even with this tab in the background.</span>
      <Button size="sm" variant="primary" onClick={() => void askNotificationPermission()} data-testid="approvals-notify-allow">
        Turn on
      </Button>
      <Button size="sm" variant="ghost" onClick={() => setNotificationsEnabled(false)} data-testid="approvals-notify-dismiss">
        Not now
      </Button>
    </div>
  )
}
