import { Dialog as RadixDialog } from 'radix-ui'
import type { ReactNode } from 'react'
import { X } from 'lucide-react'

/**
 * A side sheet over the right edge (the History detail, a file): non-modal so the table behind it
 * stays usable with the keyboard; Escape or the close button closes it.
 */
export function Drawer(props: {
  open: boolean
  onOpenChange(open: boolean): void
  title: ReactNode
  subtitle?: ReactNode
  children: ReactNode
  testId?: string
  actions?: ReactNode
}) {
  return (
    <RadixDialog.Root open={props.open} onOpenChange={props.onOpenChange} modal={false}>
      <RadixDialog.Portal>
        <RadixDialog.Content className="drawer" data-testid={props.testId} onInteractOutside={(event) => event.preventDefault()}>
          <div className="drawer-head">
            <div className="drawer-title">
              <RadixDialog.Title asChild>
                <h2>{props.title}</h2>
              </RadixDialog.Title>
              <RadixDialog.Description asChild>
                <div className="muted small">{props.subtitle ?? ''}</div>
              </RadixDialog.Description>
            </div>
            <div className="drawer-actions">
              {props.actions}
              <RadixDialog.Close className="icon-btn" aria-label="Close" data-testid={props.testId ? `${props.testId}-close` : undefined}>
                <X size={16} aria-hidden="true" />
              </RadixDialog.Close>
            </div>
          </div>
          <div className="drawer-body">{props.children}</div>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  )
}
