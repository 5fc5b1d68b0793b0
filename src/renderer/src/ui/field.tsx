import { useId, type ReactNode } from 'react'

/**
 * A labelled form field with an inline error: the control gets its id, `aria-invalid` and
 * `aria-describedby` through the render prop, so every input in the console is wired the same way.
 */
export function Field(props: {
  label: string
  hint?: ReactNode
  error?: string
  testId?: string
  children(control: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }): ReactNode
}) {
  const id = useId()
  const hintId = `${id}-hint`
  const errorId = `${id}-error`
  const describedBy = [props.hint ? hintId : undefined, props.error ? errorId : undefined].filter(Boolean).join(' ') || undefined
  return (
    <div className="field" data-testid={props.testId}>
      <label className="field-label" htmlFor={id}>
        {props.label}
      </label>
      {props.children({ id, 'aria-invalid': props.error ? true : undefined, 'aria-describedby': describedBy })}
      {props.hint && (
        <span id={hintId} className="field-hint">
          {props.hint}
        </span>
      )}
      {props.error && (
        <span id={errorId} className="field-error" role="alert" data-testid={props.testId ? `${props.testId}-error` : undefined}>
          {props.error}
        </span>
      )}
    </div>
  )
}
