import { historyStatuses } from '@shared/ipc/history'
import { visibleText } from '@shared/visible-text'
import { Search, X } from 'lucide-react'
import { useEffect, useState, type ReactNode } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Button } from '../../../ui'
import { useDebouncedCallback } from '../hooks/use-debounced-callback'
import { hasFilters, isoOrBlank, localInputOf, noFilters, timePresets, timeRangeOf, type TimeChoice } from '../lib/filters'
import { statusLabel } from '../lib/format'
import { agentOptions, providerOptions, toolOptions } from '../lib/options'
import { useHistoryStore } from '../store/history-store'

/** How long the search box waits after the last keystroke before it asks the host. */
const textDebounceMs = 300

/** The filter bar: free text, agent, tool, status, provider and time range (all kept in the URL). */
export function ToolbarHistoryFilters() {
  const filters = useHistoryStore((state) => state.filters)
  const setFilters = useHistoryStore((state) => state.setFilters)
  const agents = useHistoryStore(useShallow((state) => agentOptions(state.agentIds, state.seen, state.filters.agentId)))
  const tools = useHistoryStore(useShallow((state) => toolOptions(state.seen, state.filters.tool)))
  const providers = useHistoryStore(useShallow((state) => providerOptions(state.providerIds, state.seen, state.filters.providerId)))
  const [text, setText] = useState(filters.text)
  const [time, setTime] = useState<TimeChoice>(filters.since || filters.until ? 'custom' : 'any')
  const applyText = useDebouncedCallback((value: string) => void setFilters({ text: value }), textDebounceMs)

  // A link or the back button changed the filters: the inputs follow.
  useEffect(() => setText(filters.text), [filters.text])
  useEffect(() => {
    if (!filters.since && !filters.until) setTime((current) => (current === 'custom' ? current : 'any'))
    else setTime((current) => (current === 'any' ? 'custom' : current))
  }, [filters.since, filters.until])

  const clear = () => {
    setText('')
    setTime('any')
    void setFilters(noFilters)
  }
  return (
    <div className="history-filters" role="search" aria-label="Filter calls" data-testid="history-filters">
      <label className="history-search">
        <Search size={14} aria-hidden="true" />
        <input
          type="search"
          data-testid="history-filter-text"
          aria-label="Search tool, input and error"
          value={text}
          placeholder="Search tool, input, error…"
          title="Whole words, all of them; end a word with * to match it as a prefix (pyt*)"
          spellCheck={false}
          onChange={(event) => {
            setText(event.target.value)
            applyText(event.target.value)
          }}
        />
      </label>
      <Picker name="agent" label="Agent" value={filters.agentId} shown={filters.agentId || 'All'} onChange={(agentId) => void setFilters({ agentId })}>
        <option value="">All</option>
        {agents.map((id) => (
          <option key={id} value={id}>
            {id}
          </option>
        ))}
      </Picker>
      {/* An upstream MCP server names its tools: an option holds no markup, so the name is escaped (`visibleText`). */}
      <Picker
        name="tool"
        label="Tool"
        value={filters.tool}
        shown={filters.tool ? visibleText(filters.tool) : 'All'}
        onChange={(tool) => void setFilters({ tool })}
      >
        <option value="">All</option>
        {tools.map((name) => (
          <option key={name} value={name}>
            {visibleText(name)}
          </option>
        ))}
      </Picker>
      <Picker
        name="status"
        label="Status"
        value={filters.status}
        shown={filters.status ? statusLabel(filters.status) : 'All'}
        onChange={(status) => void setFilters({ status: status as typeof filters.status })}
      >
        <option value="">All</option>
        {historyStatuses.map((status) => (
          <option key={status} value={status}>
            {statusLabel(status)}
          </option>
        ))}
      </Picker>
      <Picker
        name="provider"
        label="Provider"
        value={filters.providerId}
        shown={filters.providerId || 'All'}
        onChange={(providerId) => void setFilters({ providerId })}
      >
        <option value="">All</option>
        {providers.map((id) => (
          <option key={id} value={id}>
            {id}
          </option>
        ))}
      </Picker>
      <Picker
        name="time"
        label="Time"
        value={time}
        shown={time === 'any' ? 'Any time' : time === 'custom' ? 'Custom range…' : (timePresets.find((preset) => preset.id === time)?.label ?? time)}
        onChange={(value) => {
          const choice = value as TimeChoice
          setTime(choice)
          void setFilters(timeRangeOf(choice, Date.now(), filters))
        }}
      >
        <option value="any">Any time</option>
        {timePresets.map((preset) => (
          <option key={preset.id} value={preset.id}>
            {preset.label}
          </option>
        ))}
        <option value="custom">Custom range…</option>
      </Picker>
      {time === 'custom' && (
        <>
          <TimeInput name="since" label="From" value={filters.since} onChange={(since) => void setFilters({ since })} />
          <TimeInput name="until" label="To" value={filters.until} onChange={(until) => void setFilters({ until })} />
        </>
      )}
      {hasFilters({ ...filters, text }) && (
        <Button variant="ghost" size="sm" icon={<X size={14} />} data-testid="history-filter-clear" onClick={clear}>
          Clear
        </Button>
      )}
    </div>
  )
}

/**
 * A compact select with its name inside the control (`Agent  All ▾`), as wide as the value it
 * shows (a native select is as wide as its longest option), so the bar fits one line at 1280 px.
 */
function Picker(props: { name: string; label: string; value: string; shown: string; onChange(value: string): void; children: ReactNode }) {
  return (
    <label className={`history-picker${props.value && props.value !== 'any' ? ' is-set' : ''}`}>
      <span className="history-picker-key">{props.label}</span>
      <select
        data-testid={`history-filter-${props.name}`}
        aria-label={props.label}
        value={props.value}
        style={{ width: `calc(${Math.min(props.shown.length, 22)}ch + 30px)` }}
        onChange={(event) => props.onChange(event.target.value)}
      >
        {props.children}
      </select>
    </label>
  )
}

/** A local date-time input for one end of a custom range (the filter holds it as UTC ISO). */
function TimeInput(props: { name: 'since' | 'until'; label: string; value: string; onChange(iso: string): void }) {
  return (
    <label className="history-picker history-picker-time">
      <span className="history-picker-key">{props.label}</span>
      <input
        type="datetime-local"
        data-testid={`history-filter-${props.name}`}
        aria-label={`${props.label} (local time)`}
        value={localInputOf(props.value)}
        onChange={(event) => props.onChange(isoOrBlank(event.target.value))}
      />
    </label>
  )
}
