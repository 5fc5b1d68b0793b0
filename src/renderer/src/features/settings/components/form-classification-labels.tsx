import type { SettingView } from '@shared/settings'
import { Plus, Trash2 } from 'lucide-react'
import { useEffect, useMemo, useState } from 'react'
import { Button, IconButton } from '../../../ui'
import { draftFromLabels, labelCount, labelGroups, labelsFromDraft, levels, type LabelDraft, type LabelGroup } from '../lib/labels'
import { useSettingsStore } from '../store/settings-store'
import { CardSetting } from './card-setting'

/**
 * The global classification labels (`policy.labels`): four groups of pattern → level rows,
 * checked with the shared schema (errors on their rows) and saved together.
 */
export function FormClassificationLabels({ setting }: { setting: SettingView }) {
  const save = useSettingsStore((state) => state.save)
  const saving = useSettingsStore((state) => state.saving[setting.key] === true)
  const stored = useMemo(() => draftFromLabels(setting.value), [setting.value])
  const [draft, setDraft] = useState<LabelDraft>(stored)
  const [errors, setErrors] = useState<Record<string, string>>({})
  useEffect(() => {
    setDraft(stored)
    setErrors({})
  }, [stored])
  const dirty = JSON.stringify(draft) !== JSON.stringify(stored)
  const update = (group: LabelGroup, rows: LabelDraft[LabelGroup]) => {
    setDraft({ ...draft, [group]: rows })
    setErrors({})
  }
  const submit = async () => {
    const checked = labelsFromDraft(draft)
    if (!checked.ok) return setErrors(checked.errors)
    await save(setting.key, checked.value)
  }
  return (
    <CardSetting setting={setting} title="Classification labels" defaultText="no labels" wide>
      <form
        className="set-labels"
        data-testid="setting-policy.labels-form"
        onSubmit={(event) => {
          event.preventDefault()
          void submit()
        }}
      >
        {labelGroups.map((group) => (
          <fieldset key={group.key} className="set-label-group" data-testid={`setting-labels-${group.key}`}>
            <legend>
              {group.title} <span className="set-muted">— {group.hint}</span>
            </legend>
            {draft[group.key].length === 0 && <p className="set-muted set-small set-label-none">None.</p>}
            {draft[group.key].map((row, index) => {
              const error = errors[`${group.key}:${index}`]
              const errorId = `set-label-${group.key}-${index}-error`
              return (
                <div key={index} className="set-label-row">
                  <input
                    className="set-input set-label-pattern"
                    aria-label={`${group.title}: pattern ${index + 1}`}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={error ? errorId : undefined}
                    placeholder={group.placeholder}
                    value={row.pattern}
                    spellCheck={false}
                    data-testid={`setting-label-${group.key}-${index}-pattern`}
                    onChange={(event) =>
                      update(
                        group.key,
                        draft[group.key].map((r, at) => (at === index ? { ...r, pattern: event.target.value } : r))
                      )
                    }
                  />
                  <select
                    className="set-input set-label-level"
                    aria-label={`${group.title}: level of pattern ${index + 1}`}
                    value={row.level}
                    data-testid={`setting-label-${group.key}-${index}-level`}
                    onChange={(event) =>
                      update(
                        group.key,
                        draft[group.key].map((r, at) => (at === index ? { ...r, level: event.target.value as typeof row.level } : r))
                      )
                    }
                  >
                    {levels.map((level) => (
                      <option key={level} value={level}>
                        {level}
                      </option>
                    ))}
                  </select>
                  <IconButton
                    label={`Remove ${row.pattern || 'this row'} from ${group.title.toLowerCase()}`}
                    icon={<Trash2 size={14} aria-hidden="true" />}
                    onClick={() =>
                      update(
                        group.key,
                        draft[group.key].filter((_, at) => at !== index)
                      )
                    }
                  />
                  {error && (
                    <p id={errorId} className="set-error set-label-error" role="alert">
                      {error}
                    </p>
                  )}
                </div>
              )
            })}
            {errors[`${group.key}:group`] && (
              <p className="set-error" role="alert">
                {errors[`${group.key}:group`]}
              </p>
            )}
            <Button
              size="sm"
              variant="ghost"
              icon={<Plus size={14} />}
              data-testid={`setting-labels-${group.key}-add`}
              onClick={() => update(group.key, [...draft[group.key], { pattern: '', level: 'CONFIDENTIAL' }])}
            >
              Add a label
            </Button>
          </fieldset>
        ))}
        <div className="set-form-buttons">
          <Button type="submit" variant="primary" size="sm" disabled={!dirty} busy={saving} data-testid="setting-policy.labels-save">
            Save labels
          </Button>
          <Button
            size="sm"
            variant="ghost"
            disabled={!dirty}
            onClick={() => {
              setDraft(stored)
              setErrors({})
            }}
          >
            Discard changes
          </Button>
          <span className="set-muted set-small" aria-live="polite">
            {dirty ? 'Unsaved changes' : `${labelCount(stored)} label${labelCount(stored) === 1 ? '' : 's'} in force for every agent`}
          </span>
        </div>
      </form>
    </CardSetting>
  )
}
