import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { AgentConnection } from '@shared/ipc/agents'

/** Stands for the agent's token in every snippet: the token is shown once at creation and never stored. */
export const tokenPlaceholder = '<token>'

/**
 * The ready-to-paste connection snippets of the Agents view (SPEC §8) for one agent and the
 * gateway's URL: a generic MCP JSON entry (Streamable HTTP with the bearer header), the Claude
 * Code command, Cursor's `mcp.json`, and a stdio entry through `airlock mcp-stdio` for clients
 * that only speak stdio (the token then comes from `AIRLOCK_TOKEN`, never the command line).
 * The stdio entry names this checkout's `bin/airlock.mjs` by its absolute path: `airlock` is on
 * no one's PATH without `npm link`.
 */
export function connectionSnippets(agentId: string, url: string, airlockCommand = airlockCommandPath()): AgentConnection {
  const name = `airlock-${agentId}`
  const authorization = `Bearer ${tokenPlaceholder}`
  const json = (value: unknown) => JSON.stringify(value, null, 2)
  return {
    url,
    snippets: {
      generic: json({ mcpServers: { [name]: { type: 'http', url, headers: { Authorization: authorization } } } }),
      claudeCode: `claude mcp add --transport http ${name} ${url} --header "Authorization: ${authorization}"`,
      cursor: json({ mcpServers: { [name]: { url, headers: { Authorization: authorization } } } }),
      stdio: json({ mcpServers: { [name]: { command: airlockCommand, args: ['mcp-stdio', '--agent', agentId], env: { AIRLOCK_TOKEN: tokenPlaceholder } } } })
    }
  }
}

/** This checkout's `bin/airlock.mjs` (found above the running code), else plain `airlock` (an install that put it on PATH). */
export function airlockCommandPath(from: string = __dirname): string {
  for (let dir = from, i = 0; i < 5; dir = dirname(dir), i++) {
    const candidate = join(dir, 'bin', 'airlock.mjs')
    if (existsSync(candidate)) return candidate
  }
  return 'airlock'
}
