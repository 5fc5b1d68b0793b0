import type { ReactNode } from 'react'

/** The colour a badge carries: ok, bad, warn, info or neutral. Meaning never rests on colour alone. */
export type BadgeTone = 'ok' | 'bad' | 'warn' | 'info' | 'neutral'

/** A short label (status, risk flag, classification) in a tone. */
export function Badge(props: { tone?: BadgeTone; children: ReactNode; title?: string; testId?: string }) {
  return (
    <span className={`badge badge-${props.tone ?? 'neutral'}`} title={props.title} data-testid={props.testId}>
      {props.children}
    </span>
  )
}

/** A small count (pending approvals in the navigation); hidden at zero. */
export function CountBadge(props: { count: number; label: string; testId?: string }) {
  if (props.count <= 0) return null
  return (
    <span className="count-badge" aria-label={`${props.count} ${props.label}`} data-testid={props.testId}>
      {props.count > 99 ? '99+' : props.count}
    </span>
  )
}
