import { historyStatuses } from '@shared/ipc/history'
import { useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { useDebouncedCallback } from '../hooks/use-debounced-callback'
import { agentOptions, hasFilters, noFilters, toolOptions } from '../lib/history-selectors'
import { useHistoryStore } from '../store/history-store'

/** How long the search box waits after the last keystroke before it asks main. */
const textDebounceMs = 300

/** The History view's filters (agent, tool, status, text) and the chain check. */
export function ToolbarHistory() {
  const { filters, setFilters, verify, verifying } = useHistoryStore(
    useShallow((state) => ({ filters: state.filters, setFilters: state.setFilters, verify: state.verify, verifying: state.verifying }))
  )
  const agents = useHistoryStore(useShallow((state) => agentOptions(state.agentIds, state.rows, state.filters.agentId)))
  const tools = useHistoryStore(useShallow((state) => toolOptions(state.rows)))
  const [text, setText] = useState(filters.text)
  const [tool, setTool] = useState(filters.tool)
  const applyText = useDebouncedCallback((value: string) => void setFilters({ text: value }), textDebounceMs)
  const applyTool = useDebouncedCallback((value: string) => void setFilters({ tool: value }), textDebounceMs)
  const clear = () => {
    setText('')
    setTool('')
    void setFilters(noFilters)
  }
  return (
    <div className="filters" data-testid="history-filters">
      <label className="filter">
        <span className="field-label">Agent</span>
        <select data-testid="history-filter-agent" value={filters.agentId} onChange={(event) => void setFilters({ agentId: event.target.value })}>
          <option value="">All agents</option>
          {agents.map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
      </label>
      <label className="filter">
        <span className="field-label">Tool</span>
        <input
          className="text-input"
          data-testid="history-filter-tool"
          list="history-tools"
          value={tool}
          placeholder="Any tool"
          spellCheck={false}
          onChange={(event) => {
            setTool(event.target.value)
            applyTool(event.target.value)
          }}
        />
        <datalist id="history-tools">
          {tools.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      </label>
      <label className="filter">
        <span className="field-label">Status</span>
        <select data-testid="history-filter-status" value={filters.status} onChange={(event) => void setFilters({ status: event.target.value as typeof filters.status })}>
          <option value="">Any status</option>
          {historyStatuses.map((status) => (
            <option key={status} value={status}>
              {status.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </label>
      <label className="filter filter-grow">
        <span className="field-label">Search</span>
        <input
          className="text-input text-input-plain"
          type="search"
          data-testid="history-filter-text"
          value={text}
          placeholder="Words in the tool, input or error"
          title="Whole words, all of them; end a word with * to match it as a prefix (pyt*)"
          onChange={(event) => {
            setText(event.target.value)
            applyText(event.target.value)
          }}
        />
      </label>
      <div className="filter-buttons">
        {hasFilters({ ...filters, text, tool }) && (
          <button type="button" className="link-button" data-testid="history-filter-clear" onClick={clear}>
            Clear filters
          </button>
        )}
        <button type="button" className="button-secondary" data-testid="history-verify" disabled={verifying} onClick={() => void verify()}>
          {verifying ? 'Verifying…' : 'Verify chain'}
        </button>
      </div>
    </div>
  )
}
