import { SectionSettings } from './section-settings'
import type { SettingKey, SettingView } from '@shared/settings'
import { useShallow } from 'zustand/react/shallow'
import { PanelConsoleToken, useSystemStore } from '../../system'
import { CardSetting } from './card-setting'
import { FieldNumberSetting } from './field-number-setting'

const ports: { key: SettingKey; title: string }[] = [
  { key: 'gateway.port', title: 'Agent gateway port' },
  { key: 'console.port', title: 'Web console port' }
]

const limits: { key: SettingKey; title: string; unit: string }[] = [
  { key: 'gateway.idle_timeout_seconds', title: 'Idle session timeout', unit: 'seconds' },
  { key: 'gateway.idle_release_seconds', title: 'Release warm resources after', unit: 'seconds idle' },
  { key: 'gateway.max_concurrent_calls', title: 'Calls in flight per agent', unit: 'calls' },
  { key: 'gateway.rate_per_minute', title: 'Rate per agent', unit: 'per minute' },
  { key: 'gateway.max_sessions_per_agent', title: 'Sessions per agent', unit: 'sessions' }
]

/** Gateway and console ports (read at start) and the gateway's per-agent limits (applied at once). */
export function SectionNetwork({ settings }: { settings: Partial<Record<SettingKey, SettingView>> }) {
  const transport = useSystemStore(useShallow((state) => state.info?.transport))
  const servedPort = transport === 'websocket' ? window.location.port : undefined
  return (
    <SectionSettings id="set-network" title="Gateway and console">
      <p className="set-section-lead">
        Ports are read when Airlock starts (<code>airlock serve --port</code> and <code>--gateway-port</code> override them): a change applies at the next
        start. Both listen on 127.0.0.1 only.
        {servedPort && (
          <>
            {' '}
            This console is being served on port <strong data-testid="setting-served-port">{servedPort}</strong>.
          </>
        )}
      </p>
      <div className="set-card">
        {ports.map(({ key, title }) =>
          settings[key] ? (
            <CardSetting key={key} setting={settings[key]} title={title}>
              <FieldNumberSetting setting={settings[key]} label={title} />
            </CardSetting>
          ) : null
        )}
        <PanelConsoleToken />
      </div>
      <h3 className="set-subsection-title">Gateway limits, per agent — applied at once</h3>
      <div className="set-card">
        {limits.map(({ key, title, unit }) =>
          settings[key] ? (
            <CardSetting key={key} setting={settings[key]} title={title}>
              <FieldNumberSetting setting={settings[key]} label={title} unit={unit} />
            </CardSetting>
          ) : null
        )}
      </div>
    </SectionSettings>
  )
}
