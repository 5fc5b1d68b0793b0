/** A rule's matcher as JSON, checked as typed: the error (as an alert) or the hint under it. */
export function FieldMatcherJson(props: { id: string; value: string; onChange(value: string): void; error?: string; hint: string; testId: string }) {
  const invalid = props.error !== undefined
  return (
    <div className="field">
      <label className="field-label" htmlFor={props.id}>
        Matcher
      </label>
      <textarea
        id={props.id}
        className="appr-input appr-input-code"
        rows={Math.min(14, props.value.split('\n').length + 1)}
        value={props.value}
        spellCheck={false}
        aria-invalid={invalid || undefined}
        aria-describedby={`${props.id}-hint`}
        onChange={(event) => props.onChange(event.target.value)}
        data-testid={props.testId}
      />
      <span id={`${props.id}-hint`} className={invalid ? 'field-error' : 'field-hint'} role={invalid ? 'alert' : undefined}>
        {invalid ? props.error : props.hint}
      </span>
    </div>
  )
}
