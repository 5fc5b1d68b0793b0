import { FooterRuleForm } from './footer-rule-form'
import type { ApprovalView, RuleMatcher, RuleScope } from '@shared/approvals'
import { ChevronDown, ChevronRight } from 'lucide-react'
import { useEffect, useMemo, useState } from 'react'
import { visibleJson } from '@shared/visible-text'
import { Badge, Dialog, TextAgent } from '../../../ui'
import { riskOf } from '../lib/queue'
import { defaultTtlSeconds, parseMatcherJson } from '../lib/rules'
import { FactsMatcher } from './facts-matcher'
import { FieldMatcherJson } from './field-matcher-json'
import { PickTtl } from './pick-ttl'

/** What the operator chose in the rule dialog. */
export type RuleChoice = { scope: RuleScope; ttlSeconds: number | null; matcher?: RuleMatcher }

/**
 * Approve as a rule (SPEC §7): shows exactly what the rule will let through without asking (the
 * proposed matcher, fact by fact, and the risk flags it answers), who it applies to and for how
 * long. The matcher can be edited as JSON, checked with the shared schema before anything is sent.
 */
export function DialogApproveRule(props: {
  open: boolean
  item?: ApprovalView
  onOpenChange(open: boolean): void
  onApprove(choice: RuleChoice): Promise<string | undefined>
}) {
  const proposed = props.item?.proposedRule
  const [scope, setScope] = useState<RuleScope>('agent')
  const [ttl, setTtl] = useState<number | null>(defaultTtlSeconds)
  const [editing, setEditing] = useState(false)
  const [matcherText, setMatcherText] = useState('')
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    if (!props.open) return
    setScope('agent')
    setTtl(defaultTtlSeconds)
    setEditing(false)
    // The same JSON value, with hidden characters as `\u` escapes: a textarea cannot mark them.
    setMatcherText(proposed ? visibleJson(proposed.matcher) : '')
    setError(undefined)
  }, [props.open, props.item?.id, proposed])
  const edited = useMemo(() => (editing ? parseMatcherJson(matcherText) : undefined), [editing, matcherText])
  const matcher = edited?.ok ? edited.matcher : proposed?.matcher
  const changed = edited?.ok === true && JSON.stringify(edited.matcher) !== JSON.stringify(proposed?.matcher)

  const submit = async () => {
    if (edited && !edited.ok) return
    setBusy(true)
    const refused = await props.onApprove({ scope, ttlSeconds: ttl, ...(changed && edited?.ok ? { matcher: edited.matcher } : {}) })
    setBusy(false)
    if (refused) setError(refused)
  }
  const item = props.item
  return (
    <Dialog
      open={props.open}
      onOpenChange={props.onOpenChange}
      title="Approve as a rule"
      description="Approves this request now and remembers it: later requests the rule matches run without asking."
      testId="dialog-approval-rule"
      wide
    >
      {item && proposed && matcher && (
        <form
          className="appr-dialog-form"
          onSubmit={(event) => {
            event.preventDefault()
            void submit()
          }}
        >
          <div className="appr-rule-preview" data-testid="rule-preview">
            <div className="appr-rule-preview-head">
              <span className="appr-muted">Will allow without asking{changed ? ' (edited)' : ''}</span>
              <code>{changed ? 'your edited matcher, below' : <TextAgent text={proposed.description} />}</code>
            </div>
            <FactsMatcher matcher={matcher} />
            <div className="appr-rule-preview-foot">
              <span className="appr-muted">
                {proposed.riskFlags.length === 0
                  ? 'Only for requests with no risk flag: one with any flag still asks.'
                  : 'Only with these risk flags; a request with any other flag still asks:'}
              </span>
              {proposed.riskFlags.length > 0 && (
                <span>
                  {proposed.riskFlags.map((flag) => (
                    <Badge key={flag} tone={riskOf(flag).tone}>
                      {riskOf(flag).label}
                    </Badge>
                  ))}
                </span>
              )}
            </div>
          </div>

          <button type="button" className="appr-disclosure" aria-expanded={editing} onClick={() => setEditing(!editing)}>
            {editing ? <ChevronDown size={14} aria-hidden="true" /> : <ChevronRight size={14} aria-hidden="true" />}
            Edit the matcher (JSON)
          </button>
          {editing && (
            <FieldMatcherJson
              id="appr-rule-matcher"
              value={matcherText}
              onChange={setMatcherText}
              error={edited?.ok === false ? edited.error : undefined}
              hint='Checked as you type. A command entry may add "args": a pattern (* any characters, ? one) for what may follow its prefix.'
              testId="rule-matcher-json"
            />
          )}

          <fieldset className="appr-choices">
            <legend>Applies to</legend>
            <Choice
              name="scope"
              value="session"
              checked={scope === 'session'}
              onChange={setScope}
              disabled={item.sessionId === null}
              title="This session only"
              text={item.sessionId ? 'Until this agent session ends.' : 'This request came from no session.'}
            />
            <Choice
              name="scope"
              value="agent"
              checked={scope === 'agent'}
              onChange={setScope}
              disabled={item.agentId === null}
              title={`Agent ${item.agentId ?? '—'}`}
              text="Every session of this agent, now and later."
            />
            <Choice
              name="scope"
              value="global"
              checked={scope === 'global'}
              onChange={setScope}
              title="Every agent"
              text="Any agent making a matching request. Use sparingly."
            />
          </fieldset>

          <div className="field">
            <span className="field-label" id="appr-rule-ttl">
              Expires after
            </span>
            <PickTtl value={ttl} onChange={setTtl} labelledBy="appr-rule-ttl" />
            <span className="field-hint">Counted from now. You can change or revoke it later in the Rules tab.</span>
          </div>

          <FooterRuleForm
            error={error}
            onCancel={() => props.onOpenChange(false)}
            busy={busy}
            disabled={edited?.ok === false}
            testId="approval-rule-confirm"
            autoFocus
          >
            Approve and remember
          </FooterRuleForm>
        </form>
      )}
    </Dialog>
  )
}

function Choice(props: {
  name: string
  value: RuleScope
  checked: boolean
  disabled?: boolean
  onChange(value: RuleScope): void
  title: string
  text: string
}) {
  return (
    <label className="appr-choice">
      <input
        type="radio"
        name={props.name}
        value={props.value}
        checked={props.checked}
        disabled={props.disabled}
        onChange={() => props.onChange(props.value)}
        data-testid={`rule-scope-${props.value}`}
      />
      <span className="appr-choice-text">
        <strong>{props.title}</strong>
        <span>{props.text}</span>
      </span>
    </label>
  )
}
