import type { SettingView } from '@shared/settings'
import type { ReactNode } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { inlineCodeParts } from '../lib/inline-code'
import { useSettingsStore } from '../store/settings-store'

/**
 * One setting as a row: its name, key and what it does on the left; its editor, default and
 * "Reset to default" on the right; the host's refusal under it. `testId` is `setting-<key>`.
 */
export function CardSetting(props: { setting: SettingView; title: string; children: ReactNode; note?: ReactNode; defaultText?: string; wide?: boolean }) {
  const { setting } = props
  const { error, saving } = useSettingsStore(useShallow((state) => ({ error: state.saveErrors[setting.key], saving: state.saving[setting.key] === true })))
  const reset = useSettingsStore((state) => state.reset)
  const headingId = `set-${setting.key.replace(/\W/g, '-')}`
  return (
    <div className={`set-row${props.wide ? ' set-row-wide' : ''}`} data-testid={`setting-${setting.key}`} role="group" aria-labelledby={headingId}>
      <div className="set-text">
        <h3 id={headingId} className="set-title">
          {props.title} <code className="set-key">{setting.key}</code>
        </h3>
        <p className="set-description">
          {inlineCodeParts(setting.description).map((part, index) => (part.code ? <code key={index}>{part.text}</code> : part.text))}
        </p>
        {props.note}
      </div>
      <div className="set-editor">
        {props.children}
        <div className="set-meta">
          <span>default {props.defaultText ?? JSON.stringify(setting.defaultValue)}</span>
          {!setting.isDefault && (
            <button type="button" className="set-link" onClick={() => void reset(setting.key)} disabled={saving} data-testid={`setting-${setting.key}-reset`}>
              Reset to default
            </button>
          )}
          {saving && <span aria-live="polite">saving…</span>}
        </div>
        {error && (
          <p className="set-error" role="alert" data-testid={`setting-${setting.key}-error`}>
            {error}
          </p>
        )}
      </div>
    </div>
  )
}
