import type { SettingView } from '@shared/settings'
import { useEffect, useState } from 'react'
import { parseNumberSetting } from '../lib/setting-input'
import { useSettingsStore } from '../store/settings-store'

/** A whole-number setting: checked against the shared schema as typed, saved on Enter or when focus leaves. */
export function FieldNumberSetting({ setting, label, unit }: { setting: SettingView; label: string; unit?: string }) {
  const save = useSettingsStore((state) => state.save)
  const clearSaveError = useSettingsStore((state) => state.clearSaveError)
  const stored = String(setting.value)
  const [draft, setDraft] = useState(stored)
  const [error, setError] = useState<string>()
  useEffect(() => setDraft(stored), [stored])
  const commit = () => {
    if (draft.trim() === stored) return setError(undefined)
    const parsed = parseNumberSetting(setting.key, draft)
    if (!parsed.ok) return setError(parsed.error)
    setError(undefined)
    void save(setting.key, parsed.value)
  }
  const errorId = `set-input-error-${setting.key.replace(/\W/g, '-')}`
  return (
    <div className="set-number">
      <input
        className="set-input set-input-number"
        inputMode="numeric"
        aria-label={label}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        data-testid={`setting-${setting.key}-input`}
        value={draft}
        spellCheck={false}
        onChange={(event) => {
          setDraft(event.target.value)
          setError(undefined)
          clearSaveError(setting.key)
        }}
        onBlur={commit}
        onKeyDown={(event) => {
          if (event.key === 'Enter') commit()
          if (event.key === 'Escape') {
            setDraft(stored)
            setError(undefined)
          }
        }}
      />
      {unit && <span className="set-unit">{unit}</span>}
      {error && (
        <p id={errorId} className="set-error" role="alert">
          {error}
        </p>
      )}
    </div>
  )
}
