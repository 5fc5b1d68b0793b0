import type { ReactNode } from 'react'

/** The title row of a view: title, a one-line explanation, and the view's main actions on the right. */
export function ViewHeader(props: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="view-header">
      <div>
        <h1>{props.title}</h1>
        {props.subtitle && <p className="view-subtitle">{props.subtitle}</p>}
      </div>
      {props.actions && <div className="view-actions">{props.actions}</div>}
    </header>
  )
}
