import type { ReactNode } from 'react'

/** The title row of a view, with an optional one-line explanation. */
export function ViewHeader(props: { title: string; subtitle?: ReactNode }) {
  return (
    <header className="view-header">
      <h1>{props.title}</h1>
      {props.subtitle && <p className="view-subtitle">{props.subtitle}</p>}
    </header>
  )
}
