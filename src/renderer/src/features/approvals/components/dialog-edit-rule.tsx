import { FooterRuleForm } from './footer-rule-form'
import type { RuleMatcher, RuleView } from '@shared/approvals'
import { useEffect, useMemo, useState } from 'react'
import { visibleJson } from '@shared/visible-text'
import { Dialog, TextAgent } from '../../../ui'
import { parseMatcherJson } from '../lib/rules'
import { FactsMatcher } from './facts-matcher'
import { FieldMatcherJson } from './field-matcher-json'
import { PickTtl } from './pick-ttl'

/**
 * Edits a remembered rule: its time to live (counted from now, or none) and its matcher as JSON,
 * checked with the shared schema as the operator types; only what changed is sent.
 */
export function DialogEditRule(props: {
  rule?: RuleView
  onOpenChange(open: boolean): void
  onSave(change: { ttlSeconds?: number | null; matcher?: RuleMatcher }): Promise<string | undefined>
}) {
  const rule = props.rule
  const [ttl, setTtl] = useState<number | null | undefined>(undefined)
  const [text, setText] = useState('')
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    setTtl(undefined)
    // The same JSON value, with hidden characters as `\u` escapes: a textarea cannot mark them.
    setText(rule ? visibleJson(rule.matcher) : '')
    setError(undefined)
  }, [rule])
  const parsed = useMemo(() => parseMatcherJson(text), [text])
  const matcherChanged = rule !== undefined && parsed.ok && JSON.stringify(parsed.matcher) !== JSON.stringify(rule.matcher)
  const nothing = ttl === undefined && !matcherChanged

  const save = async () => {
    if (!parsed.ok || nothing) return
    setBusy(true)
    const refused = await props.onSave({
      ...(ttl !== undefined ? { ttlSeconds: ttl } : {}),
      ...(matcherChanged && parsed.ok ? { matcher: parsed.matcher } : {})
    })
    setBusy(false)
    if (refused) setError(refused)
  }
  return (
    <Dialog
      open={rule !== undefined}
      onOpenChange={props.onOpenChange}
      title="Edit rule"
      description={rule && <TextAgent text={rule.description} />}
      testId="dialog-rule-edit"
      wide
    >
      {rule && (
        <form
          className="appr-dialog-form"
          onSubmit={(event) => {
            event.preventDefault()
            void save()
          }}
        >
          <div className="field">
            <span className="field-label" id="appr-edit-ttl">
              New expiry{' '}
              <span className="appr-muted appr-small">
                (now: {rule.expiresAt ? `ends ${new Date(rule.expiresAt).toLocaleString()}` : rule.scope === 'session' ? 'ends with its session' : 'never'})
              </span>
            </span>
            <PickTtl value={ttl === undefined ? -1 : ttl} onChange={setTtl} labelledBy="appr-edit-ttl" />
            <span className="field-hint">Counted from now. Leave unselected to keep the current expiry.</span>
          </div>
          <div>
            <FieldMatcherJson
              id="appr-edit-matcher"
              value={text}
              onChange={setText}
              error={parsed.ok ? undefined : parsed.error}
              hint="What it will match:"
              testId="rule-edit-matcher"
            />
            {parsed.ok && <FactsMatcher matcher={parsed.matcher} />}
          </div>
          <FooterRuleForm error={error} onCancel={() => props.onOpenChange(false)} busy={busy} disabled={!parsed.ok || nothing} testId="rule-edit-save">
            Save rule
          </FooterRuleForm>
        </form>
      )}
    </Dialog>
  )
}
