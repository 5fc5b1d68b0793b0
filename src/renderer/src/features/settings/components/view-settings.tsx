import { SectionSettings } from './section-settings'
import { settingKeys, type SettingKey, type SettingView } from '@shared/settings'
import { useEffect, useMemo } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { ErrorBanner, Loading, ViewHeader } from '../../../ui'
import { PanelDataDirectory } from '../../system'
import '../settings.css'
import { useSettingsStore } from '../store/settings-store'
import { FieldSecretEnvVars } from './field-secret-env-vars'
import { FormClassificationLabels } from './form-classification-labels'
import { SectionApprovals } from './section-approvals'
import { SectionEgress } from './section-egress'
import { SectionNetwork } from './section-network'

/**
 * The Settings view: approvals (handler, timeout, auto-allow behind a confirmation), gateway and
 * console ports and limits, the data directory, classification labels and secret variables.
 * Stored in this home's database; main validates every change.
 */
export function SettingsView() {
  const { settings, status, loadError } = useSettingsStore(
    useShallow((state) => ({ settings: state.settings, status: state.status, loadError: state.loadError }))
  )
  const load = useSettingsStore((state) => state.load)
  useEffect(() => void load(), [load])
  const byKey = useMemo(() => Object.fromEntries(settings.map((setting) => [setting.key, setting])) as Partial<Record<SettingKey, SettingView>>, [settings])
  const order = byKey['code_execution.providers']

  return (
    <div className="set-view">
      <ViewHeader
        title="Settings"
        subtitle="Stored in this Airlock home's database and checked by Airlock before they are kept; most apply at once, to every agent."
      />
      {status === 'error' && <ErrorBanner message={`Could not load the settings: ${loadError}`} onRetry={() => void load()} testId="settings-error" />}
      {status !== 'ready' && status !== 'error' ? (
        <Loading label="Reading the settings…" />
      ) : settings.length === 0 ? null : (
        <>
          {byKey['access_control_policy.auto_allow'] && <SectionApprovals autoAllow={byKey['access_control_policy.auto_allow']} />}
          <SectionNetwork settings={byKey} />
          <SectionEgress />
          <SectionSettings id="set-data" title="Data directory">
            <p className="set-section-lead">
              Agents&apos; workspaces, the database (settings, history, approvals, audit log) and provisioned images live here. Choose another with{' '}
              <code>--home</code> or <code>AIRLOCK_HOME</code> when starting Airlock.
            </p>
            <div className="set-card set-card-padded">
              <PanelDataDirectory />
            </div>
          </SectionSettings>
          <SectionSettings id="set-policy" title="Policy">
            <div className="set-card">
              {byKey['policy.labels'] && <FormClassificationLabels setting={byKey['policy.labels']} />}
              {byKey['policy.secret_env_vars'] && <FieldSecretEnvVars setting={byKey['policy.secret_env_vars']} />}
            </div>
          </SectionSettings>
          {order && (
            <SectionSettings id="set-code" title="Code execution">
              <div className="set-card">
                <div className="set-row" data-testid={`setting-${order.key}`}>
                  <div className="set-text">
                    <h3 className="set-title">
                      Provider order <code className="set-key">{order.key}</code>
                    </h3>
                    <p className="set-description">{order.description}</p>
                  </div>
                  <div className="set-editor">
                    <ol className="set-order">
                      {(Array.isArray(order.value) ? order.value : []).map((candidate: unknown, index) => {
                        const id = typeof candidate === 'string' ? candidate : String((candidate as { providerId?: unknown }).providerId)
                        return (
                          <li key={`${id}-${index}`}>
                            <code>{id}</code>
                            {typeof candidate === 'object' && <span className="set-muted set-small"> with config</span>}
                          </li>
                        )
                      })}
                    </ol>
                    <a href="#/providers" data-testid="setting-open-providers">
                      Reorder and configure in Providers
                    </a>
                  </div>
                </div>
              </div>
            </SectionSettings>
          )}
          <UnknownSettings settings={settings} />
        </>
      )}
    </div>
  )
}

const shown = new Set<SettingKey>([
  'access_control_policy.auto_allow',
  'code_execution.providers',
  'policy.labels',
  'policy.secret_env_vars',
  'console.port',
  'gateway.port',
  'gateway.idle_timeout_seconds',
  'gateway.max_concurrent_calls',
  'gateway.rate_per_minute',
  'gateway.max_sessions_per_agent'
])

/** A setting this view has no editor for yet (a newer contract): listed read-only so nothing is hidden. */
function UnknownSettings({ settings }: { settings: SettingView[] }) {
  const rest = settings.filter((setting) => !shown.has(setting.key) && settingKeys.includes(setting.key))
  if (rest.length === 0) return null
  return (
    <SectionSettings id="set-other" title="Other">
      <div className="set-card">
        {rest.map((setting) => (
          <div key={setting.key} className="set-row" data-testid={`setting-${setting.key}`}>
            <div className="set-text">
              <h3 className="set-title">
                <code className="set-key">{setting.key}</code>
              </h3>
              <p className="set-description">{setting.description}</p>
            </div>
            <div className="set-editor">
              <code>{JSON.stringify(setting.value)}</code>
              <span className="set-muted set-small">shown read-only: this console has no editor for it yet</span>
            </div>
          </div>
        ))}
      </div>
    </SectionSettings>
  )
}
