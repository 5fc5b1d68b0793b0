import { useState, type FormEvent } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { agentIdProblem } from '../lib/agent-selectors'
import { useAgentsStore } from '../store/agents-store'

/** Registers a new agent with the default profile: an id (a slug) and an optional display name. */
export function FormCreateAgent({ onDone }: { onDone: () => void }) {
  const { agents, creating, createError, create } = useAgentsStore(
    useShallow((state) => ({ agents: state.agents, creating: state.creating, createError: state.createError, create: state.create }))
  )
  const [agentId, setAgentId] = useState('')
  const [name, setName] = useState('')
  const [touched, setTouched] = useState(false)
  const problem = agentIdProblem(agentId.trim(), agents)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setTouched(true)
    if (problem) return
    const trimmedName = name.trim()
    if (await create({ agentId: agentId.trim(), ...(trimmedName ? { name: trimmedName } : {}) })) onDone()
  }

  return (
    <form className="create-card" data-testid="form-create-agent" onSubmit={(event) => void submit(event)} noValidate>
      <h2>New agent</h2>
      <div className="create-fields">
        <label className="field">
          <span className="field-label">Id</span>
          <input
            className="text-input"
            data-testid="create-agent-id"
            value={agentId}
            placeholder="coder"
            autoFocus
            autoComplete="off"
            spellCheck={false}
            aria-invalid={touched && problem !== undefined}
            onChange={(event) => setAgentId(event.target.value)}
            onBlur={() => setTouched(agentId.length > 0)}
          />
        </label>
        <label className="field">
          <span className="field-label">
            Name <span className="muted">(optional)</span>
          </span>
          <input className="text-input text-input-plain" data-testid="create-agent-name" value={name} placeholder="Coding assistant" autoComplete="off" onChange={(event) => setName(event.target.value)} />
        </label>
        <div className="create-buttons">
          <button type="submit" className="button-primary" data-testid="create-agent-submit" disabled={creating}>
            {creating ? 'Creating…' : 'Create agent'}
          </button>
          <button type="button" className="button-secondary" onClick={onDone}>
            Cancel
          </button>
        </div>
      </div>
      {touched && problem && (
        <p className="field-error small" data-testid="create-agent-problem">
          {problem}
        </p>
      )}
      {createError && (
        <p className="field-error small" role="alert" data-testid="create-agent-error">
          {createError}
        </p>
      )}
      <p className="muted small">
        The agent starts with the default profile (files, shell and code in its own workspace, asking on risky calls). Its token is shown once, right
        after it is created.
      </p>
    </form>
  )
}
