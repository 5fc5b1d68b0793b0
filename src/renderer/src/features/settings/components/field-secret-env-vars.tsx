import type { SettingView } from '@shared/settings'
import { Plus, X } from 'lucide-react'
import { useState } from 'react'
import { Button } from '../../../ui'
import { envNameError } from '../lib/setting-input'
import { useSettingsStore } from '../store/settings-store'
import { CardSetting } from './card-setting'

/** `policy.secret_env_vars`: names of this process's variables whose values are redacted everywhere; add and remove save at once. */
export function FieldSecretEnvVars({ setting }: { setting: SettingView }) {
  const save = useSettingsStore((state) => state.save)
  const names = Array.isArray(setting.value) ? (setting.value as string[]) : []
  const [draft, setDraft] = useState('')
  const [error, setError] = useState<string>()
  const add = async () => {
    const name = draft.trim()
    const problem = envNameError(name, names)
    if (problem) return setError(problem)
    if (await save(setting.key, [...names, name])) setDraft('')
  }
  return (
    <CardSetting setting={setting} title="Secret environment variables" defaultText="none">
      <ul className="set-chips" aria-label="Secret variable names">
        {names.length === 0 && <li className="set-muted set-small">None listed.</li>}
        {names.map((name) => (
          <li key={name} className="set-chip">
            <code>{name}</code>
            <button
              type="button"
              className="set-chip-remove"
              aria-label={`Stop redacting ${name}`}
              onClick={() =>
                void save(
                  setting.key,
                  names.filter((n) => n !== name)
                )
              }
            >
              <X size={12} aria-hidden="true" />
            </button>
          </li>
        ))}
      </ul>
      <form
        className="set-inline-form"
        onSubmit={(event) => {
          event.preventDefault()
          void add()
        }}
      >
        <input
          className="set-input"
          aria-label="Variable name to redact"
          aria-invalid={error ? true : undefined}
          placeholder="OPENAI_API_KEY"
          value={draft}
          spellCheck={false}
          data-testid="setting-policy.secret_env_vars-input"
          onChange={(event) => {
            setDraft(event.target.value)
            setError(undefined)
          }}
        />
        <Button type="submit" size="sm" icon={<Plus size={14} />} disabled={!draft.trim()}>
          Add
        </Button>
      </form>
      {error && (
        <p className="set-error" role="alert">
          {error}
        </p>
      )}
    </CardSetting>
  )
}
