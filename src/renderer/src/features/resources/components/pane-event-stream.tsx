import { Pause, Play } from 'lucide-react'
import { useMemo } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Badge, Button, ErrorBanner, Loading, TextAgent } from '../../../ui'
import { useEventFiltersInUrl } from '../hooks/use-event-filters-url'
import { eventTone, filterEvents, typeFilterOptions } from '../lib/event-filter'
import { eventFacts, eventLabel } from '../lib/resource-format'
import { useResourcesStore } from '../store/resources-store'

/**
 * The resource event stream (SPEC §3.5), newest first: filter by type prefix and text (kept in
 * the URL), pause to read without the list moving (new events wait aside, counted), resume.
 */
export function PaneEventStream() {
  useEventFiltersInUrl()
  const { events, held, paused, filters, status, error } = useResourcesStore(
    useShallow((state) => ({
      events: state.events,
      held: state.held,
      paused: state.paused,
      filters: state.filters,
      status: state.eventsStatus,
      error: state.eventsError
    }))
  )
  const { setPaused, setFilters, loadEvents } = useResourcesStore(
    useShallow((state) => ({ setPaused: state.setPaused, setFilters: state.setFilters, loadEvents: state.loadEvents }))
  )
  const shown = useMemo(() => filterEvents(events, filters), [events, filters])
  const options = useMemo(() => typeFilterOptions(events), [events])
  const filtered = filters.type !== '' || filters.text.trim() !== ''

  return (
    <section className="res-events" data-testid="resource-events" aria-labelledby="res-events-title">
      <div className="res-events-head">
        <h2 id="res-events-title" className="res-section-title">
          Event stream
        </h2>
        <span className="res-muted res-small" data-testid="resource-events-count" aria-live="polite">
          {filtered ? `${shown.length} of ${events.length} events` : `${events.length} events`}
          {paused && held.length > 0 ? ` · ${held.length} new while paused` : ''}
        </span>
      </div>
      <div className="res-events-toolbar">
        <label className="res-filter">
          <span>Type</span>
          <select className="res-input" value={filters.type} onChange={(event) => setFilters({ type: event.target.value })} data-testid="resource-events-type">
            {options.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <label className="res-filter res-filter-grow">
          <span>Text</span>
          <input
            className="res-input"
            type="search"
            value={filters.text}
            placeholder="handle, owner, provider, reason…"
            onChange={(event) => setFilters({ text: event.target.value })}
            data-testid="resource-events-text"
          />
        </label>
        {filtered && (
          <Button variant="ghost" size="sm" onClick={() => setFilters({ type: '', text: '' })}>
            Clear filters
          </Button>
        )}
        <Button
          size="sm"
          variant={paused ? 'primary' : 'secondary'}
          icon={paused ? <Play size={14} /> : <Pause size={14} />}
          aria-pressed={paused}
          onClick={() => setPaused(!paused)}
          data-testid="resource-events-pause"
        >
          {paused ? `Resume${held.length ? ` (${held.length} new)` : ''}` : 'Pause'}
        </Button>
      </div>
      {status === 'error' && <ErrorBanner message={`Could not read the recent events: ${error}`} onRetry={() => void loadEvents()} />}
      {status === 'loading' && events.length === 0 ? (
        <Loading label="Reading recent events…" />
      ) : shown.length === 0 ? (
        <p className="res-events-empty" data-testid="resource-events-empty">
          {events.length === 0
            ? 'No resource events yet. Declarations, approvals, starts, health changes and releases stream here as they happen; the audit log keeps them all.'
            : 'No event matches these filters. Clear them to see the whole stream.'}
        </p>
      ) : (
        <ol className="res-event-list" data-testid="resource-events-list">
          {shown.map((event, index) => {
            const payload = event.payload
            const reason = typeof payload.reason === 'string' ? payload.reason : undefined
            const failure = typeof payload.error === 'string' ? payload.error : undefined
            return (
              <li key={`${event.at}-${event.type}-${index}`} className="res-event">
                <time dateTime={event.at} title={new Date(event.at).toLocaleString()} className="res-event-time">
                  {new Date(event.at).toLocaleTimeString()}
                </time>
                <span className="res-event-type">
                  <Badge tone={eventTone(event.type)} title={event.type}>
                    {eventLabel(event.type)}
                  </Badge>
                </span>
                <span className="res-event-detail">
                  <TextAgent text={eventFacts(payload).join(' · ')} />
                  {reason && (
                    <span className="res-muted">
                      {' — '}
                      <TextAgent text={reason} />
                    </span>
                  )}
                  {failure && (
                    <span className="res-event-error">
                      {' — '}
                      <TextAgent text={failure} />
                    </span>
                  )}
                </span>
              </li>
            )
          })}
        </ol>
      )}
    </section>
  )
}
