import type { AgentConnection } from '@shared/ipc/agents'

/** Stands for the agent's token in every snippet: the token is shown once at creation and never stored. */
export const tokenPlaceholder = '<token>'

/**
 * The ready-to-paste connection snippets of the Agents view (SPEC §8) for one agent and the
 * gateway's URL: a generic MCP JSON entry (Streamable HTTP with the bearer header), the Claude
 * Code command, Cursor's `mcp.json`, and a stdio entry through `airlock mcp-stdio` for clients
 * that only speak stdio (the token then comes from `AIRLOCK_TOKEN`, never the command line).
 */
export function connectionSnippets(agentId: string, url: string): AgentConnection {
  const name = `airlock-${agentId}`
  const authorization = `Bearer ${tokenPlaceholder}`
  const json = (value: unknown) => JSON.stringify(value, null, 2)
  return {
    url,
    snippets: {
      generic: json({ mcpServers: { [name]: { type: 'http', url, headers: { Authorization: authorization } } } }),
      claudeCode: `claude mcp add --transport http ${name} ${url} --header "Authorization: ${authorization}"`,
      cursor: json({ mcpServers: { [name]: { url, headers: { Authorization: authorization } } } }),
      stdio: json({ mcpServers: { [name]: { command: 'airlock', args: ['mcp-stdio', '--agent', agentId], env: { AIRLOCK_TOKEN: tokenPlaceholder } } } })
    }
  }
}
