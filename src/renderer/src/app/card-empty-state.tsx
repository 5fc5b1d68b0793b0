import type { ReactNode } from 'react'

/** What a view shows when it has nothing yet: what will appear here, and why it is empty now. */
export function CardEmptyState(props: { title: string; children: ReactNode; testId: string }) {
  return (
    <section className="empty-state" data-testid={props.testId}>
      <h2>{props.title}</h2>
      <div className="empty-state-body">{props.children}</div>
    </section>
  )
}
