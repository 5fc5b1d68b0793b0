import { Dialog as RadixDialog, AlertDialog } from 'radix-ui'
import type { ReactNode } from 'react'
import { X } from 'lucide-react'

/**
 * A modal dialog (Radix: focus trap, Escape, aria wiring). `open`/`onOpenChange` are controlled by
 * the caller; `footer` holds the buttons.
 */
export function Dialog(props: {
  open: boolean
  onOpenChange(open: boolean): void
  title: string
  description?: ReactNode
  children?: ReactNode
  footer?: ReactNode
  testId?: string
  wide?: boolean
}) {
  return (
    <RadixDialog.Root open={props.open} onOpenChange={props.onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="overlay" />
        <RadixDialog.Content
          className={`dialog${props.wide ? ' dialog-wide' : ''}`}
          data-testid={props.testId}
          aria-describedby={props.description ? undefined : undefined}
        >
          <div className="dialog-head">
            <RadixDialog.Title className="dialog-title">{props.title}</RadixDialog.Title>
            <RadixDialog.Close className="icon-btn" aria-label="Close">
              <X size={16} aria-hidden="true" />
            </RadixDialog.Close>
          </div>
          {props.description ? (
            <RadixDialog.Description className="dialog-description">{props.description}</RadixDialog.Description>
          ) : (
            <RadixDialog.Description className="visually-hidden">{props.title}</RadixDialog.Description>
          )}
          {props.children && <div className="dialog-body">{props.children}</div>}
          {props.footer && <div className="dialog-footer">{props.footer}</div>}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  )
}

/**
 * A confirmation for something consequential (release a resource, revoke a rule, turn on
 * auto-allow): says exactly what will happen; the safe choice has focus.
 */
export function ConfirmDialog(props: {
  open: boolean
  onOpenChange(open: boolean): void
  title: string
  children: ReactNode
  confirmLabel: string
  onConfirm(): void
  danger?: boolean
  testId?: string
}) {
  return (
    <AlertDialog.Root open={props.open} onOpenChange={props.onOpenChange}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="overlay" />
        <AlertDialog.Content className="dialog" data-testid={props.testId}>
          <AlertDialog.Title className="dialog-title">{props.title}</AlertDialog.Title>
          <AlertDialog.Description asChild>
            <div className="dialog-description">{props.children}</div>
          </AlertDialog.Description>
          <div className="dialog-footer">
            <AlertDialog.Cancel className="btn btn-secondary btn-md" data-testid={props.testId ? `${props.testId}-cancel` : undefined}>
              Cancel
            </AlertDialog.Cancel>
            <AlertDialog.Action
              className={`btn ${props.danger ? 'btn-danger' : 'btn-primary'} btn-md`}
              onClick={props.onConfirm}
              data-testid={props.testId ? `${props.testId}-confirm` : undefined}
            >
              {props.confirmLabel}
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  )
}
