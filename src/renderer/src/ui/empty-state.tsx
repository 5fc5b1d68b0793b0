import type { ReactNode } from 'react'

/**
 * What a view or panel shows when a query returned nothing: what will appear here and what to do
 * next (a button, or the CLI command). Only shown after the query answered.
 */
export function EmptyState(props: { title: string; children: ReactNode; action?: ReactNode; testId: string; icon?: ReactNode }) {
  return (
    <section className="empty-state" data-testid={props.testId}>
      {props.icon && (
        <div className="empty-state-icon" aria-hidden="true">
          {props.icon}
        </div>
      )}
      <div>
        <h2>{props.title}</h2>
        <div className="empty-state-body">{props.children}</div>
        {props.action && <div className="empty-state-action">{props.action}</div>}
      </div>
    </section>
  )
}

/** A failed query or action: what went wrong (the host's message) and, when possible, a retry. */
export function ErrorBanner(props: { message: string; onRetry?(): void; onDismiss?(): void; testId?: string }) {
  return (
    <div className="banner banner-error banner-dismissable" role="alert" data-testid={props.testId}>
      <span>{props.message}</span>
      <span className="banner-actions">
        {props.onRetry && (
          <button type="button" className="btn btn-secondary btn-sm" onClick={props.onRetry}>
            Retry
          </button>
        )}
        {props.onDismiss && (
          <button type="button" className="btn btn-ghost btn-sm" onClick={props.onDismiss}>
            Dismiss
          </button>
        )}
      </span>
    </div>
  )
}

/** A quiet loading line for a panel whose first answer has not arrived yet. */
export function Loading(props: { label: string; testId?: string }) {
  return (
    <div className="loading" role="status" data-testid={props.testId}>
      <span className="spinner" aria-hidden="true" />
      {props.label}
    </div>
  )
}
