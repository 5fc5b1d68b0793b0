import type { ReactNode } from 'react'
import { Button } from '../../../ui'

/** The end of a rule dialog's form: the refusal if the last try had one, Cancel, and the submit button. */
export function FooterRuleForm(props: {
  error?: string
  onCancel(): void
  busy: boolean
  disabled: boolean
  testId: string
  autoFocus?: boolean
  children: ReactNode
}) {
  return (
    <>
      {props.error && (
        <div className="appr-dialog-error" role="alert">
          {props.error}
        </div>
      )}
      <div className="dialog-footer">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={props.busy} disabled={props.disabled} data-testid={props.testId} autoFocus={props.autoFocus}>
          {props.children}
        </Button>
      </div>
    </>
  )
}
