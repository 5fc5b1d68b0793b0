import { SectionSettings } from './section-settings'
import { agentProfileDefaults } from '@shared/agents'
import type { SettingView } from '@shared/settings'
import { ShieldAlert } from 'lucide-react'
import { useState } from 'react'
import { askNotificationPermission, setNotificationsEnabled, useWebNotifications } from '../../../lib/web-notify'
import { Badge, Button } from '../../../ui'
import { describeSeconds } from '../lib/setting-input'
import { useSettingsStore } from '../store/settings-store'
import { CardSetting } from './card-setting'
import { DialogAutoAllowConfirm } from './dialog-auto-allow-confirm'

/**
 * Approvals: where approvals go (the console's queue), how long an item waits (a profile field,
 * said where it is set), and `access_control_policy.auto_allow` behind its confirmation.
 */
export function SectionApprovals({ autoAllow }: { autoAllow: SettingView }) {
  const save = useSettingsStore((state) => state.save)
  const [confirming, setConfirming] = useState(false)
  const on = autoAllow.value === true
  return (
    <SectionSettings id="set-approvals" title="Approvals">
      <div className="set-card">
        <div className="set-row" data-testid="setting-approval-handler">
          <div className="set-text">
            <h3 className="set-title">Approval handler</h3>
            <p className="set-description">
              Every approval goes to the operator&apos;s queue: the Approvals view of any open console, or <code>airlock approvals</code> on the command line.
              The call waits until someone decides or its item expires. This build has no other handler to choose.
            </p>
          </div>
          <div className="set-editor">
            <span className="set-value">
              <code>console</code> <a href="#/approvals">Open the queue</a>
            </span>
          </div>
        </div>
        <RowBrowserNotifications />
        <div className="set-row" data-testid="setting-approval-timeout">
          <div className="set-text">
            <h3 className="set-title">Default approval timeout</h3>
            <p className="set-description">
              How long an item waits for a decision before it expires and the call is denied (fail closed). It is the profile field{' '}
              <code>approvalTimeoutSeconds</code>, set per agent or per role: Agents → edit profile, or <code>airlock agent create --profile</code>.
            </p>
          </div>
          <div className="set-editor">
            <span className="set-value">{describeSeconds(agentProfileDefaults.approvalTimeoutSeconds)}</span>
            <div className="set-meta">
              <span>for agents whose profile and role do not set it</span>
            </div>
          </div>
        </div>
        <CardSetting
          setting={autoAllow}
          title="Auto-allow"
          defaultText="off"
          note={
            on && (
              <p className="set-warning" data-testid="auto-allow-warning" role="status">
                <ShieldAlert size={15} aria-hidden="true" />
                <span>On: policy gates are approved without asking you. Blocked calls, sandboxes, path, command and network limits still apply.</span>
              </p>
            )
          }
        >
          <label className="set-switch">
            <input
              type="checkbox"
              role="switch"
              checked={on}
              data-testid="setting-access_control_policy.auto_allow-input"
              aria-label="Auto-allow: approve policy gates automatically"
              onChange={(event) => {
                // Turning it on asks first; turning it off is always safe and immediate.
                if (event.target.checked) setConfirming(true)
                else void save('access_control_policy.auto_allow', false)
              }}
            />
            <span className="set-switch-track" aria-hidden="true" />
            {on ? <Badge tone="bad">on — nothing asks</Badge> : <Badge tone="ok">off — gates ask you</Badge>}
          </label>
        </CardSetting>
      </div>
      <DialogAutoAllowConfirm open={confirming} onOpenChange={setConfirming} onConfirm={() => void save('access_control_policy.auto_allow', true)} />
    </SectionSettings>
  )
}

/**
 * This browser's notifications of new requests (the web console; the desktop app notifies
 * natively): on or off here, and what the browser allows.
 */
function RowBrowserNotifications() {
  const { supported, permission, enabled } = useWebNotifications()
  if (!supported) return null
  const state = !enabled
    ? 'off'
    : permission === 'granted'
      ? 'on'
      : permission === 'denied'
        ? 'blocked by this browser'
        : 'waiting for the browser\u2019s permission'
  return (
    <div className="set-row" data-testid="setting-browser-notifications">
      <div className="set-text">
        <h3 className="set-title">Browser notifications</h3>
        <p className="set-description">
          A notification per new approval request, so a request is seen with this tab in the background. A choice of this browser only; the browser must allow
          it too (a block is lifted in the browser&apos;s site settings).
        </p>
      </div>
      <div className="set-editor">
        <span className="set-value" data-testid="setting-browser-notifications-state">
          {state}
        </span>
        <div className="set-meta">
          {enabled ? (
            <Button size="sm" onClick={() => setNotificationsEnabled(false)} data-testid="setting-browser-notifications-off">
              Turn off
            </Button>
          ) : (
            <Button size="sm" onClick={() => setNotificationsEnabled(true)} data-testid="setting-browser-notifications-on">
              Turn on
            </Button>
          )}
          {enabled && permission === 'default' && (
            <Button size="sm" variant="ghost" onClick={() => void askNotificationPermission()}>
              Ask the browser
            </Button>
          )}
        </div>
      </div>
    </div>
  )
}
