import type { EgressRecord } from '@shared/network'

/**
 * The live resources of the `sqlite`, `browser` and `mcp` kinds (SPEC §4), as the minimal core
 * types the built-in actions (`sqlite_query`, `browse`, `<server>__<tool>`) use them through, so
 * that no action imports a provider. The providers' classes (SqliteConnection, BrowserSession,
 * McpConnection) satisfy them structurally; test/actions/* assert that at compile time.
 */

/** What one SQL statement returned: rows (reads), changes (writes), or a refusal with the reason. */
export type SqliteStatementResult =
  | { status: 'ok'; rows: Record<string, unknown>[]; changes: number; truncated: boolean }
  | { status: 'blocked'; reason: string }

/**
 * The live resource of `sqlite` handles: one connection to one database file, read-only unless
 * its policy allows writes. SQLite's own errors (syntax, constraint) are thrown; what the
 * provider's statement gate refuses (and a write on a read-only connection) comes back `blocked`.
 */
export interface SqliteDatabase {
  readonly writable: boolean
  query(sql: string, params?: unknown[] | Record<string, unknown>): SqliteStatementResult
}

/** What one visit of a page returned: final URL, HTTP status, title, visible text (bounded), a PNG. */
export type BrowserPageVisit = {
  url: string
  status: number | undefined
  title: string
  text: string
  textTruncated: boolean
  screenshot?: Uint8Array
}

/**
 * The live resource of `browser` handles: one browser with one page per session. `visit` follows
 * the handle's network policy; `contactedOrigins` lists every origin the session's pages reached.
 */
export interface WebBrowser {
  visit(url: string, options?: { screenshot?: boolean; timeoutMs?: number }): Promise<BrowserPageVisit>
  contactedOrigins(): string[]
}

/** A tool an upstream MCP server offers, as it lists it. */
export type UpstreamToolInfo = { name: string; description?: string; inputSchema: Record<string, unknown> }

/**
 * The live resource of `mcp` handles: a connected client to one upstream MCP server. The
 * transport's headers and environment stay inside it. `callTool` answers the upstream's result
 * (an MCP `CallToolResult`) as the server sent it; protocol failures are thrown.
 */
export interface UpstreamMcpClient {
  listTools(): Promise<UpstreamToolInfo[]>
  /** `egress` is handed the connections the server made through the egress proxy while the call ran (`network: "proxy"`). */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options?: { timeoutMs?: number; signal?: AbortSignal; egress?: (records: EgressRecord[]) => void }
  ): Promise<unknown>
}
