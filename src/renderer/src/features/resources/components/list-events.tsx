import type { ResourceEventView } from '@shared/ipc'
import { eventLabel } from '../lib/resource-format'

/** The event stream: newest first, ids and reasons only (payloads carry no secrets). */
export function ListEvents({ events }: { events: ResourceEventView[] }) {
  if (events.length === 0) {
    return (
      <p className="muted" data-testid="events-empty">
        No resource events yet. Declarations, approvals, starts, health checks and releases will stream here as they happen.
      </p>
    )
  }
  return (
    <ol className="event-list" data-testid="event-list">
      {events.map((event, index) => {
        const p = event.payload as Record<string, string | number | undefined>
        return (
          <li key={`${event.at}-${index}`} className={`event event-${eventLabel(event.type).replace(/\s/g, '-')}`}>
            <time dateTime={event.at}>{new Date(event.at).toLocaleTimeString()}</time>
            <span className="event-type">{eventLabel(event.type)}</span>
            <span className="event-detail">
              {[p.kind, p.providerId, p.scope && `${p.scope}${p.ownerId ? ` ${p.ownerId}` : ''}`, p.handleId && `#${String(p.handleId).slice(0, 8)}`]
                .filter(Boolean)
                .join(' · ')}
              {p.reason && <span className="muted"> — {p.reason}</span>}
              {p.error && <span className="field-error"> — {p.error}</span>}
            </span>
          </li>
        )
      })}
    </ol>
  )
}
