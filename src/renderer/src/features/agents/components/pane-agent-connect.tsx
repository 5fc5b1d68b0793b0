import { useShallow } from 'zustand/react/shallow'
import { CopyButton, ErrorBanner, Loading } from '../../../ui'
import { useAgentsStore } from '../store/agents-store'

// Claude Code's one-line command spans the row; the three JSON entries sit side by side below it.
const snippets = [
  { key: 'claudeCode', title: 'Claude Code', hint: 'Run once in a terminal.' },
  { key: 'generic', title: 'Any MCP client (JSON)', hint: 'An mcpServers entry: Streamable HTTP with the bearer header.' },
  { key: 'cursor', title: 'Cursor', hint: 'Into .cursor/mcp.json (project) or ~/.cursor/mcp.json.' },
  { key: 'stdio', title: 'stdio clients', hint: 'Through airlock mcp-stdio; the token comes from AIRLOCK_TOKEN, never the command line.' }
] as const

/** The connect tab: the live gateway URL and ready-to-paste snippets; `<token>` stands for the token, except while a new one is shown. */
export function PaneAgentConnect() {
  const { connection, issuedToken } = useAgentsStore(
    useShallow((state) => ({
      connection: state.connection,
      issuedToken: state.issued !== undefined && state.issued.agentId === state.selectedId ? state.issued.token : undefined
    }))
  )
  const issuedHere = issuedToken !== undefined
  if (connection.status === 'error') return <ErrorBanner message={connection.error!.message} />
  if (!connection.value) return <Loading label="Asking the host for the gateway URL…" />
  const value = connection.value
  return (
    <div className="ag-connect">
      <div className="ag-connect-url">
        <span className="ag-muted">Gateway</span>
        <code data-testid="agent-gateway-url">{value.url}</code>
        <CopyButton text={value.url} label="Copy URL" testId="agent-gateway-url-copy" />
      </div>
      <p className="ag-muted ag-connect-note">
        {issuedHere ? (
          <>
            The snippets hold the agent’s new token while it is shown above; once you dismiss it they show <code>&lt;token&gt;</code> again.
          </>
        ) : (
          <>
            Replace <code>&lt;token&gt;</code> with the agent’s token. It is shown once, when the agent is created or its token rotated; if it is lost, rotate
            it.
          </>
        )}
      </p>
      <div className="ag-snippets">
        {snippets.map((snippet) => {
          // While the new token is on screen anyway, the snippets carry it: ready to paste as they are.
          const text = issuedToken ? value.snippets[snippet.key].replaceAll('<token>', issuedToken) : value.snippets[snippet.key]
          return (
            <section key={snippet.key} className={snippet.key === 'claudeCode' ? 'ag-snippet ag-snippet-line' : 'ag-snippet'} aria-label={snippet.title}>
              <header className="ag-snippet-head">
                <div>
                  <h3>{snippet.title}</h3>
                  <p className="ag-muted ag-small">{snippet.hint}</p>
                </div>
                <CopyButton text={text} testId={`agent-snippet-${testKey(snippet.key)}-copy`} />
              </header>
              <pre className="ag-code" tabIndex={0} aria-label={`${snippet.title} snippet`} data-testid={`agent-snippet-${testKey(snippet.key)}`}>
                {text}
              </pre>
            </section>
          )
        })}
      </div>
    </div>
  )
}

function testKey(key: (typeof snippets)[number]['key']): string {
  return key === 'claudeCode' ? 'claude-code' : key
}
