import type { ReactNode } from 'react'

/** One titled part of the call drawer (Input, stdout, Provider…), with optional facts on the right of its title. */
export function SectionCall(props: { title: string; aside?: ReactNode; testId?: string; children: ReactNode }) {
  return (
    <section className="history-section" data-testid={props.testId}>
      <header className="history-section-head">
        <h3>{props.title}</h3>
        {props.aside && <div className="history-section-aside">{props.aside}</div>}
      </header>
      {props.children}
    </section>
  )
}

/** A label and its value in a facts grid (`<dl>`). */
export function FactCall(props: { label: string; children: ReactNode; testId?: string; wide?: boolean }) {
  return (
    <div className={`history-fact${props.wide ? ' history-fact-wide' : ''}`} data-testid={props.testId}>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </div>
  )
}
