import { useRef, useState } from 'react'
import type { IssuedToken } from '../store/agents-store'

/** The new agent's token, shown once: copy it now, then dismiss; Airlock keeps only its hash. */
export function PanelAgentToken({ issued, onDismiss }: { issued: IssuedToken; onDismiss: () => void }) {
  const tokenRef = useRef<HTMLElement>(null)
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle')

  const copyToken = async () => {
    try {
      await navigator.clipboard.writeText(issued.token)
      setCopy('copied')
    } catch {
      // No clipboard access (an insecure origin or a denied permission): select it for a manual copy.
      const node = tokenRef.current
      const selection = window.getSelection()
      if (node && selection) {
        const range = document.createRange()
        range.selectNodeContents(node)
        selection.removeAllRanges()
        selection.addRange(range)
      }
      setCopy('failed')
    }
  }

  return (
    <section className="token-panel" role="status" aria-live="polite" data-testid="agent-token-panel">
      <header className="token-head">
        <h2>
          Token for <code>{issued.agentId}</code>
        </h2>
        <button type="button" className="icon-button" aria-label="Dismiss" title="Dismiss" data-testid="agent-token-close" onClick={onDismiss}>
          ×
        </button>
      </header>
      <p className="warning">Copy it now: it will not be shown again. Airlock keeps only a hash of it; if it is lost, rotate the token.</p>
      <div className="token-row">
        <code ref={tokenRef} className="token-value" data-testid="agent-token">
          {issued.token}
        </code>
        <button type="button" className="button-primary" data-testid="agent-token-copy" onClick={() => void copyToken()}>
          {copy === 'copied' ? 'Copied' : 'Copy'}
        </button>
      </div>
      {copy === 'failed' && <p className="field-error small">The clipboard is not available here: the token is selected, copy it with Ctrl+C (⌘C).</p>}
      <p className="muted small">
        The agent connects over MCP with this token as its bearer. Its workspace: <code>{issued.workspace}</code>
      </p>
      <button type="button" className="button-secondary" data-testid="agent-token-dismiss" onClick={onDismiss}>
        I have copied it
      </button>
    </section>
  )
}
