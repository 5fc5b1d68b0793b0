import type { EffectiveAgentProfile, RoleView } from '@shared/agents'
import { ArrowDown, ArrowUp } from 'lucide-react'
import type { ReactNode } from 'react'
import { Field, IconButton } from '../../../ui'
import { limitKeys, profileOptions, type LimitKey, type ProfileFormValues } from '../lib/profile-form'
import { askMeaning, isolationMeaning, limitText, networkMeaning } from '../lib/profile-text'

/** What every section of the profile form gets: the values, the errors by field, what is inherited, and a setter. */
export type ProfileFormApi = {
  values: ProfileFormValues
  errors: Record<string, string>
  inherited: EffectiveAgentProfile
  /** How an inherited value is introduced (`Default`, `From role dev`). */
  inheritLabel: string
  /** The label of an "inherit" checkbox (`Use the defaults`, `Use role dev's`). */
  inheritPhrase: string
  mode: 'create' | 'edit'
  roles: RoleView[]
  set<K extends keyof ProfileFormValues>(key: K, value: ProfileFormValues[K]): void
}

type Props = { form: ProfileFormApi }

function Section(props: { title: string; hint?: ReactNode; children: ReactNode; wide?: boolean }) {
  return (
    <fieldset className="ag-section">
      <legend>{props.title}</legend>
      {props.hint && <p className="ag-section-hint">{props.hint}</p>}
      <div className={props.wide ? 'ag-section-grid ag-section-grid-wide' : 'ag-section-grid'}>{props.children}</div>
    </fieldset>
  )
}

/** A select whose first option keeps the inherited value (the key stays out of the profile). */
function InheritSelect(props: {
  form: ProfileFormApi
  field: 'isolation' | 'network' | 'ask' | 'classificationCeiling'
  label: string
  options: readonly string[]
  meaning?: Record<string, string>
}) {
  const { form, field } = props
  const value = form.values[field]
  const inherited = String(form.inherited[field])
  return (
    <Field label={props.label} error={form.errors[field]} testId={`agent-field-${field}`} hint={props.meaning?.[value || inherited]}>
      {(control) => (
        <select {...control} className="ag-select" value={value} onChange={(event) => form.set(field, event.target.value)}>
          <option value="">
            {form.inheritLabel}: {inherited}
          </option>
          {props.options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      )}
    </Field>
  )
}

function FlagSelect(props: { form: ProfileFormApi; field: 'unsafeFallback' | 'allowUnsafeLocal'; label: string; hint: string }) {
  const { form, field } = props
  return (
    <Field label={props.label} error={form.errors[field]} testId={`agent-field-${field}`} hint={props.hint}>
      {(control) => (
        <select
          {...control}
          className="ag-select"
          value={form.values[field]}
          onChange={(event) => form.set(field, event.target.value as ProfileFormValues['unsafeFallback'])}
        >
          <option value="">
            {form.inheritLabel}: {form.inherited[field] ? 'on' : 'off'}
          </option>
          <option value="true">on</option>
          <option value="false">off</option>
        </select>
      )}
    </Field>
  )
}

/** Id, display name and role. The id is fixed once the agent exists (it names its workspace). */
export function SectionIdentity({ form }: Props) {
  const { values, errors, set } = form
  return (
    <Section title="Agent">
      <Field
        label="Id"
        error={errors.agentId}
        testId="agent-field-agentId"
        hint={form.mode === 'create' ? 'A slug: lowercase letters, digits and -. It names the workspace folder.' : 'Fixed: it names the workspace folder.'}
      >
        {(control) => (
          <input
            {...control}
            className="ag-input ag-mono"
            value={values.agentId}
            readOnly={form.mode === 'edit'}
            autoFocus={form.mode === 'create'}
            autoComplete="off"
            spellCheck={false}
            placeholder="coder"
            onChange={(event) => set('agentId', event.target.value)}
          />
        )}
      </Field>
      <Field label="Name" error={errors.name} testId="agent-field-name" hint="Optional; the id when empty.">
        {(control) => (
          <input
            {...control}
            className="ag-input"
            value={values.name}
            autoComplete="off"
            placeholder="Coding assistant"
            onChange={(event) => set('name', event.target.value)}
          />
        )}
      </Field>
      <Field
        label="Role"
        error={errors.role}
        testId="agent-field-role"
        hint={
          form.roles.length === 0
            ? 'No roles yet (make one with airlock role save <id> --defaults FILE.json).'
            : 'Its defaults are inherited and cap this profile.'
        }
      >
        {(control) => (
          <select {...control} className="ag-select" value={values.role} onChange={(event) => set('role', event.target.value)}>
            <option value="">No role</option>
            {form.roles.map((role) => (
              <option key={role.id} value={role.id}>
                {role.name === role.id ? role.id : `${role.name} (${role.id})`}
              </option>
            ))}
          </select>
        )}
      </Field>
    </Section>
  )
}

/** When calls wait for the operator, for how long, and the classification ceiling. */
export function SectionAsk({ form }: Props) {
  return (
    <Section title="When it asks">
      <InheritSelect form={form} field="ask" label="Ask the operator" options={profileOptions.ask} meaning={askMeaning} />
      <Field
        label="Approval timeout (s)"
        error={form.errors.approvalTimeoutSeconds}
        testId="agent-field-approvalTimeoutSeconds"
        hint="How long a call waits for a decision."
      >
        {(control) => (
          <input
            {...control}
            className="ag-input ag-num"
            inputMode="numeric"
            value={form.values.approvalTimeoutSeconds}
            placeholder={`${form.inheritLabel}: ${form.inherited.approvalTimeoutSeconds}`}
            onChange={(event) => form.set('approvalTimeoutSeconds', event.target.value)}
          />
        )}
      </Field>
      <InheritSelect form={form} field="classificationCeiling" label="Classification ceiling" options={profileOptions.classification} />
    </Section>
  )
}

/** Isolation policy, unsafe fallback, network, and the provider order override. */
export function SectionIsolation({ form }: Props) {
  const { values, set } = form
  const move = (index: number, by: -1 | 1) => {
    const rows = [...values.providers]
    const [row] = rows.splice(index, 1)
    rows.splice(index + by, 0, row!)
    set('providers', rows)
  }
  return (
    <Section title="Isolation and network">
      <InheritSelect form={form} field="isolation" label="Isolation" options={profileOptions.isolation} meaning={isolationMeaning} />
      <InheritSelect form={form} field="network" label="Network" options={profileOptions.network} meaning={networkMeaning} />
      <FlagSelect
        form={form}
        field="unsafeFallback"
        label="Unsafe fallback"
        hint="Run on the host when no isolating provider can (not with isolation required)."
      />
      <FlagSelect form={form} field="allowUnsafeLocal" label="Allow unsafe local" hint="Authorises that fallback; both must be on." />
      <Field label="Providers, in order" error={form.errors.providers} testId="agent-field-providers" hint="Tried top to bottom for code and shell.">
        {(control) => (
          <div className="ag-providers" id={control.id} aria-describedby={control['aria-describedby']} aria-invalid={control['aria-invalid']} tabIndex={-1}>
            <label className="ag-check">
              <input type="checkbox" checked={values.inheritProviders} onChange={(event) => set('inheritProviders', event.target.checked)} />
              {form.inheritPhrase}: {form.inherited.providers.join(' → ')}
              {!form.roles.find((r) => r.id === values.role)?.defaults.providers && (
                <span className="ag-muted"> (the operator’s order in Providers; it follows that order when it changes)</span>
              )}
            </label>
            {!values.inheritProviders &&
              values.providers.map((row, index) => (
                <div key={row.id} className="ag-provider-row">
                  <label className="ag-check">
                    <input
                      type="checkbox"
                      checked={row.on}
                      onChange={(event) =>
                        set(
                          'providers',
                          values.providers.map((r) => (r.id === row.id ? { ...r, on: event.target.checked } : r))
                        )
                      }
                    />
                    <code>{row.id}</code>
                  </label>
                  <IconButton label={`Move ${row.id} up`} icon={<ArrowUp size={13} />} disabled={index === 0} onClick={() => move(index, -1)} />
                  <IconButton
                    label={`Move ${row.id} down`}
                    icon={<ArrowDown size={13} />}
                    disabled={index === values.providers.length - 1}
                    onClick={() => move(index, 1)}
                  />
                </div>
              ))}
          </div>
        )}
      </Field>
    </Section>
  )
}

/** The tools the agent is given. */
export function SectionCapabilities({ form }: Props) {
  const { values, set } = form
  const toggle = (name: (typeof profileOptions.capabilities)[number], on: boolean) =>
    set(
      'capabilities',
      profileOptions.capabilities.filter((c) => (c === name ? on : values.capabilities.includes(c)))
    )
  return (
    <Section title="Capabilities" hint="The tools this agent gets over MCP." wide>
      <Field label="Tools" error={form.errors.capabilities} testId="agent-field-capabilities">
        {(control) => (
          <div className="ag-caps" id={control.id} aria-describedby={control['aria-describedby']} tabIndex={-1}>
            <label className="ag-check ag-caps-inherit">
              <input type="checkbox" checked={values.inheritCapabilities} onChange={(event) => set('inheritCapabilities', event.target.checked)} />
              {form.inheritPhrase}: {form.inherited.capabilities.join(', ') || 'none'}
            </label>
            {!values.inheritCapabilities && (
              <div className="ag-caps-grid">
                {profileOptions.capabilities.map((name) => (
                  <label key={name} className="ag-check ag-cap">
                    <input
                      type="checkbox"
                      checked={values.capabilities.includes(name)}
                      onChange={(event) => toggle(name, event.target.checked)}
                      data-testid={`agent-cap-${name}`}
                    />
                    <code>{name}</code>
                  </label>
                ))}
              </div>
            )}
          </div>
        )}
      </Field>
    </Section>
  )
}

/** Per-call limits; empty keeps the inherited value. */
export function SectionLimits({ form }: Props) {
  return (
    <Section title="Limits per call">
      {limitKeys.map((key: LimitKey) => (
        <Field key={key} label={`${limitText[key].label} (${limitText[key].unit})`} error={form.errors[`limits.${key}`]} testId={`agent-field-limits.${key}`}>
          {(control) => (
            <input
              {...control}
              className="ag-input ag-num"
              inputMode="numeric"
              value={form.values.limits[key]}
              placeholder={`${form.inheritLabel}: ${form.inherited.limits[key]}`}
              onChange={(event) => form.set('limits', { ...form.values.limits, [key]: event.target.value })}
            />
          )}
        </Field>
      ))}
    </Section>
  )
}

/** Denylist, allowlist and allowed runtimes, one entry per line. */
export function SectionLists({ form }: Props) {
  const list = (field: 'denylist' | 'allowlist' | 'runtimes', label: string, hint: string, placeholder: string) =>
    textField(form, field, { label, hint, placeholder, rows: 3 })
  return (
    <Section title="Commands and runtimes" hint="One entry per line; empty inherits.">
      {list(
        'denylist',
        'Denylist',
        'An early stop: lines that name these, or carry them through another program, are blocked; a line the policy cannot follow asks. What holds whatever runs is the sandbox, protected paths, the egress proxy and taint.',
        'curl\nssh'
      )}
      {list('allowlist', 'Allowlist', 'When set, only these commands may run; every other command is blocked. It does not stop asks.', 'git status')}
      {list('runtimes', 'Runtimes', 'Allowed language runtimes; empty allows any.', 'python\nnode')}
    </Section>
  )
}

/** Upstream MCP servers and classification labels as JSON (secrets show as <redacted> and are kept when sent back). */
export function SectionAdvanced({ form }: Props) {
  const json = (field: 'mcpServers' | 'labels', label: string, hint: string, placeholder: string) =>
    textField(form, field, { label, hint, placeholder, rows: 5 })
  return (
    <Section
      title="MCP servers and labels (JSON)"
      hint={
        <>
          Secrets show as <code>&lt;redacted&gt;</code>; sending that back keeps the stored value.
        </>
      }
      wide
    >
      {json(
        'mcpServers',
        'Upstream MCP servers',
        'An array of { name, command | url, env, headers, network, readOnlyPaths }.',
        '[{ "name": "github", "url": "https://…" }]'
      )}
      {json('labels', 'Classification labels', 'An object of paths, databases, domains, mcpServers → level.', '{ "paths": { "secrets/**": "RESTRICTED" } }')}
    </Section>
  )
}

/** A monospaced multi-line field of the profile form (lists one entry per line, JSON). */
function textField(
  form: Props['form'],
  field: 'denylist' | 'allowlist' | 'runtimes' | 'mcpServers' | 'labels',
  shown: { label: string; hint: string; placeholder: string; rows: number }
) {
  return (
    <Field label={shown.label} error={form.errors[field]} testId={`agent-field-${field}`} hint={shown.hint}>
      {(control) => (
        <textarea
          {...control}
          className="ag-textarea ag-mono"
          rows={shown.rows}
          value={form.values[field]}
          placeholder={shown.placeholder}
          spellCheck={false}
          onChange={(event) => form.set(field, event.target.value)}
        />
      )}
    </Field>
  )
}
