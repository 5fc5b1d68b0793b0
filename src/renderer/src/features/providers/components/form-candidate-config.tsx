import { useState } from 'react'
import { Button, Field } from '../../../ui'
import { configText, knownConfigKeys, parseConfigText } from '../lib/candidates'
import type { OrderRow } from '../lib/order-rows'
import { useProvidersStore } from '../store/providers-store'

/**
 * The config of one candidate as a JSON object, merged over a requirement's config for this
 * provider only (SPEC §3.3). Checked here as JSON, then by main; either error shows at the field.
 */
export function FormCandidateConfig({ row, onDone }: { row: OrderRow; onDone(): void }) {
  const setConfig = useProvidersStore((state) => state.setConfig)
  const [text, setText] = useState(() => configText(row.config))
  const [error, setError] = useState<string>()
  const [saving, setSaving] = useState(false)
  const save = async () => {
    const parsed = parseConfigText(text)
    if (!parsed.ok) return setError(parsed.error)
    setSaving(true)
    const refused = await setConfig(row.index, parsed.config)
    setSaving(false)
    if (refused) setError(refused)
    else onDone()
  }
  return (
    <form
      className="prv-config"
      data-testid={`form-provider-config-${row.sortId}`}
      onSubmit={(event) => {
        event.preventDefault()
        void save()
      }}
    >
      <Field
        label={`Config for ${row.providerId} (JSON object; empty for none)`}
        hint={
          knownConfigKeys[row.providerId]
            ? `Keys it reads: ${knownConfigKeys[row.providerId]}`
            : "Keys are the provider's own; main validates them when it probes."
        }
        error={error}
        testId={`provider-config-field-${row.sortId}`}
      >
        {(control) => (
          <textarea
            {...control}
            className="prv-textarea"
            rows={Math.min(10, Math.max(3, text.split('\n').length + 1))}
            spellCheck={false}
            value={text}
            placeholder='{"profile": "strict"}'
            onChange={(event) => {
              setText(event.target.value)
              setError(undefined)
            }}
          />
        )}
      </Field>
      <div className="prv-config-buttons">
        <Button type="submit" variant="primary" size="sm" busy={saving} data-testid={`provider-config-save-${row.sortId}`}>
          Save config
        </Button>
        <Button size="sm" variant="ghost" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  )
}
