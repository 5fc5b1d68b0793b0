import { settingDefinitions, type SettingView } from '@shared/settings'
import { useEffect, useState } from 'react'
import { useSettingsStore } from '../store/settings-store'

/** An editor for one setting, picked from the shape of its schema; saves validate in main. */
export function FieldSetting({ setting }: { setting: SettingView }) {
  const save = useSettingsStore((state) => state.save)
  const reset = useSettingsStore((state) => state.reset)
  const error = useSettingsStore((state) => state.saveErrors[setting.key])
  const schema = settingDefinitions[setting.key].schema
  const testId = `setting-${setting.key}`

  let editor: React.JSX.Element
  if (typeof setting.defaultValue === 'boolean') {
    editor = (
      <label className="toggle">
        <input
          type="checkbox"
          data-testid={`${testId}-input`}
          checked={setting.value === true}
          onChange={(event) => void save(setting.key, event.target.checked)}
        />
        <span>{setting.value ? 'On' : 'Off'}</span>
      </label>
    )
  } else if ('options' in schema && Array.isArray(schema.options)) {
    editor = (
      <select
        data-testid={`${testId}-input`}
        value={String(setting.value)}
        onChange={(event) => void save(setting.key, event.target.value)}
      >
        {(schema.options as string[]).map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    )
  } else {
    editor = <TextSetting setting={setting} onSave={(value) => save(setting.key, value)} testId={`${testId}-input`} />
  }

  return (
    <div className="setting" data-testid={testId}>
      <div className="setting-text">
        <code className="setting-key">{setting.key}</code>
        <p>{setting.description}</p>
        {setting.key === 'access_control_policy.auto_allow' && setting.value === true && (
          <p className="warning" data-testid="auto-allow-warning">
            Policy gates are approved without asking you. Sandbox, path, command and network limits still apply.
          </p>
        )}
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
      </div>
      <div className="setting-editor">
        {editor}
        {!setting.isDefault && (
          <button type="button" className="link-button" onClick={() => void reset(setting.key)}>
            Reset to default
          </button>
        )}
      </div>
    </div>
  )
}

/** Numbers and lists are edited as JSON text and saved on Enter or blur. */
function TextSetting(props: { setting: SettingView; onSave: (value: unknown) => Promise<boolean>; testId: string }) {
  const text = JSON.stringify(props.setting.value)
  const [draft, setDraft] = useState(text)
  const [parseError, setParseError] = useState<string>()
  useEffect(() => setDraft(text), [text])
  const commit = () => {
    if (draft === text) return
    try {
      setParseError(undefined)
      void props.onSave(JSON.parse(draft))
    } catch {
      setParseError('Not valid JSON.')
    }
  }
  return (
    <>
      <input
        className="text-input"
        data-testid={props.testId}
        value={draft}
        spellCheck={false}
        onChange={(event) => setDraft(event.target.value)}
        onBlur={commit}
        onKeyDown={(event) => event.key === 'Enter' && commit()}
      />
      {parseError && <p className="field-error">{parseError}</p>}
    </>
  )
}
