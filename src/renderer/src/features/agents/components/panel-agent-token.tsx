import { Check, Copy, KeyRound, X } from 'lucide-react'
import { useRef, useState } from 'react'
import { Button, IconButton } from '../../../ui'
import { useAgentsStore, type IssuedToken } from '../store/agents-store'

/**
 * A token main just issued (new agent or rotation), shown once: copy it (alone, or inside the
 * generic MCP config), then dismiss; Airlock keeps only its hash.
 */
export function PanelAgentToken({ issued, onDismiss }: { issued: IssuedToken; onDismiss: () => void }) {
  const tokenRef = useRef<HTMLElement>(null)
  const [copied, setCopied] = useState<'token' | 'config' | 'failed' | undefined>()
  const generic = useAgentsStore((state) => (state.selectedId === issued.agentId ? state.connection.value?.snippets.generic : undefined))

  const copy = async (what: 'token' | 'config', text: string) => {
    try {
      await navigator.clipboard.writeText(text)
      setCopied(what)
    } catch {
      // No clipboard here (an insecure origin, a denied permission): select the token for a manual copy.
      const node = tokenRef.current
      const selection = window.getSelection()
      if (node && selection) {
        const range = document.createRange()
        range.selectNodeContents(node)
        selection.removeAllRanges()
        selection.addRange(range)
      }
      setCopied('failed')
    }
  }

  return (
    <section className="ag-token" role="status" aria-live="polite" aria-labelledby="ag-token-title" data-testid="panel-agent-token">
      <KeyRound className="ag-token-icon" size={20} aria-hidden="true" />
      <div className="ag-token-body">
        <div className="ag-token-head">
          <h2 id="ag-token-title">
            {issued.reason === 'created' ? 'Token of the new agent' : 'New token'} <code>{issued.agentId}</code>
          </h2>
          <IconButton label="Dismiss the token" icon={<X size={16} />} onClick={onDismiss} data-testid="agent-token-close" />
        </div>
        <p className="ag-token-warning">
          Copy it now: it will not be shown again. Airlock keeps only a hash of it; if it is lost, rotate the token.
          {issued.reason === 'rotated' && ' The previous token no longer works.'}
        </p>
        <div className="ag-token-row">
          <code ref={tokenRef} className="ag-token-value" data-testid="agent-token-value">
            {issued.token}
          </code>
          <Button
            variant="primary"
            icon={copied === 'token' ? <Check size={14} /> : <Copy size={14} />}
            onClick={() => void copy('token', issued.token)}
            data-testid="agent-token-copy"
          >
            {copied === 'token' ? 'Copied' : 'Copy token'}
          </Button>
          {generic && (
            <Button
              icon={copied === 'config' ? <Check size={14} /> : <Copy size={14} />}
              onClick={() => void copy('config', generic.replaceAll('<token>', issued.token))}
              data-testid="agent-token-copy-config"
            >
              {copied === 'config' ? 'Copied' : 'Copy MCP config with token'}
            </Button>
          )}
        </div>
        {copied === 'failed' && <p className="ag-error-text">The clipboard is not available here: the token is selected, copy it with Ctrl+C (⌘C).</p>}
        <div className="ag-token-foot">
          <span className="ag-muted">
            The agent sends it as <code>Authorization: Bearer …</code> to the gateway.
            {issued.workspace && (
              <>
                {' '}
                Workspace: <code>{issued.workspace}</code>
              </>
            )}
          </span>
          <Button size="sm" onClick={onDismiss} data-testid="agent-token-dismiss">
            I have copied it
          </Button>
        </div>
      </div>
    </section>
  )
}
