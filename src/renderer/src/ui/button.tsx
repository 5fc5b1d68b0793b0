import { forwardRef, type ButtonHTMLAttributes, type ReactNode } from 'react'

/** How much a button stands out: one primary action per area, danger for what cannot be undone. */
export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger'

/** The console's button: a variant, a size, an optional leading icon, and a busy state that disables it. */
export const Button = forwardRef<
  HTMLButtonElement,
  ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant; size?: 'sm' | 'md'; icon?: ReactNode; busy?: boolean }
>(function Button({ variant = 'secondary', size = 'md', icon, busy, className, children, disabled, type, ...rest }, ref) {
  return (
    <button
      ref={ref}
      type={type ?? 'button'}
      className={`btn btn-${variant} btn-${size}${className ? ` ${className}` : ''}`}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      {...rest}
    >
      {icon && (
        <span className="btn-icon" aria-hidden="true">
          {icon}
        </span>
      )}
      {children}
    </button>
  )
})

/** A square button holding only an icon; `label` is its accessible name and tooltip. */
export const IconButton = forwardRef<HTMLButtonElement, ButtonHTMLAttributes<HTMLButtonElement> & { label: string; icon: ReactNode }>(function IconButton(
  { label, icon, className, type, ...rest },
  ref
) {
  return (
    <button ref={ref} type={type ?? 'button'} className={`icon-btn${className ? ` ${className}` : ''}`} aria-label={label} title={label} {...rest}>
      {icon}
    </button>
  )
})
