import type { RoleView } from '@shared/agents'
import { useEffect, useRef, useState, type FormEvent } from 'react'
import { Button } from '../../../ui'
import {
  inheritedProfile,
  parseProfileForm,
  type CodeProviderId,
  type CreateAgentInput,
  type ProfileFormValues,
  type UpdateAgentInput
} from '../lib/profile-form'
import {
  SectionAdvanced,
  SectionAsk,
  SectionCapabilities,
  SectionIdentity,
  SectionIsolation,
  SectionLimits,
  SectionLists,
  type ProfileFormApi
} from './form-agent-profile-sections'

/**
 * The agent profile form (SPEC §6.1), for a new agent or an existing one. It is checked with the
 * schema main checks the call with, and each problem shows at its field; only a form that parses
 * is handed to `onSubmit`, already parsed. Empty fields are inherited from the role or defaults.
 */
export function FormAgentProfile(props: {
  mode: 'create' | 'edit'
  initial: ProfileFormValues
  roles: RoleView[]
  /** The operator's provider order (what an agent that names none follows), once known. */
  operatorOrder?: readonly CodeProviderId[]
  existingIds: string[]
  busy: boolean
  /** The host's message when it refused the last submit. */
  hostError?: string
  onSubmit(input: CreateAgentInput | UpdateAgentInput): void
  onCancel(): void
}) {
  const [values, setValues] = useState(props.initial)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [tried, setTried] = useState(false)
  const [focusError, setFocusError] = useState(0)
  const formRef = useRef<HTMLFormElement>(null)
  const role = props.roles.find((r) => r.id === values.role)
  const inherited = inheritedProfile(role, props.operatorOrder)

  // After a first submit, the form re-checks as the operator types, so a fixed field clears at once.
  const set: ProfileFormApi['set'] = (key, value) => {
    const next = { ...values, [key]: value }
    setValues(next)
    if (tried) {
      const parsed = parseProfileForm(next, props.mode, props.existingIds)
      setErrors(parsed.ok ? {} : parsed.errors)
    }
  }
  useEffect(() => {
    if (focusError === 0) return
    const first = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')
    first?.focus({ preventScroll: true })
    // Centred, so the field's label and the dialog's top stay in view (jsdom has no scrolling).
    first?.scrollIntoView?.({ block: 'center' })
  }, [focusError])

  const submit = (event: FormEvent) => {
    event.preventDefault()
    setTried(true)
    const parsed = parseProfileForm(values, props.mode, props.existingIds)
    if (!parsed.ok) {
      setErrors(parsed.errors)
      setFocusError((n) => n + 1)
      return
    }
    setErrors({})
    props.onSubmit(parsed.input)
  }

  const form: ProfileFormApi = {
    values,
    errors,
    inherited,
    inheritLabel: role ? `From role ${role.id}` : 'Default',
    inheritPhrase: role ? `Use role ${role.id}’s` : 'Use the defaults',
    set,
    mode: props.mode,
    roles: props.roles
  }
  const errorCount = Object.keys(errors).length
  return (
    <form
      ref={formRef}
      className="ag-form"
      onSubmit={submit}
      noValidate
      data-testid="form-agent-profile"
      aria-label={props.mode === 'create' ? 'New agent' : `Profile of ${values.agentId}`}
    >
      <SectionIdentity form={form} />
      <SectionAsk form={form} />
      <SectionIsolation form={form} />
      <SectionCapabilities form={form} />
      <SectionLimits form={form} />
      <SectionLists form={form} />
      <SectionAdvanced form={form} />
      <footer className="ag-form-foot">
        <div className="ag-form-status" role="status">
          {errors[''] && <span className="ag-error-text">{errors['']}</span>}
          {errorCount > 0 && !errors[''] && (
            <span className="ag-error-text" data-testid="agent-form-problems">
              {errorCount === 1 ? '1 field needs a fix.' : `${errorCount} fields need a fix.`}
            </span>
          )}
          {props.hostError && (
            <span className="ag-error-text" data-testid="agent-form-host-error">
              {props.hostError}
            </span>
          )}
          {errorCount === 0 && !props.hostError && (
            <span className="ag-muted">Empty fields are inherited{role ? ` from the role ${role.id}` : ' from the defaults'}.</span>
          )}
        </div>
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={props.busy} data-testid={props.mode === 'create' ? 'agent-create-submit' : 'agent-edit-submit'}>
          {props.mode === 'create' ? (props.busy ? 'Creating…' : 'Create agent') : props.busy ? 'Saving…' : 'Save profile'}
        </Button>
      </footer>
    </form>
  )
}
