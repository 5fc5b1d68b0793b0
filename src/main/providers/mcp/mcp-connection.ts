import { randomUUID } from 'node:crypto'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { EgressRecord } from '@shared/network'
import type { EgressEndpoint } from '../../core'

/** A tool an upstream server offers, as listed. */
export type UpstreamTool = { name: string; description?: string; inputSchema: Record<string, unknown> }

/**
 * The `mcp` provider's live resource: a connected client to one upstream MCP server. The
 * transport's headers and environment stay inside it; nothing here exposes them. A sandboxed
 * server with `network: "proxy"` has a windowed egress endpoint (closed with the server): it may
 * connect only while one of its calls runs, and each call is handed the connections made while it
 * ran (when calls overlap, the first to end gets those made while several ran: the proxy cannot
 * tell them apart).
 */
export class McpConnection {
  constructor(
    private readonly client: Client,
    /** The upstream's host process (stdio: the child, or the sandbox launcher, bwrap), for release checks; undefined over HTTP. */
    readonly pid: number | undefined,
    private readonly egress?: EgressEndpoint
  ) {}

  /** The upstream server's name and version, as it announced them. */
  get serverInfo(): { name: string; version: string } | undefined {
    return this.client.getServerVersion()
  }

  /** The upstream's tool list, read once per connection (see `listTools`). */
  private listed: Promise<UpstreamTool[]> | undefined

  /**
   * Every tool the upstream offers (following pagination), read once per connection and kept: the
   * session is shown this list and its calls are checked against it, so an upstream cannot be made
   * to run a tool it did not list. A failed read is not kept (the next asks again).
   */
  listTools(): Promise<UpstreamTool[]> {
    this.listed ??= this.readTools().catch((error: unknown) => {
      this.listed = undefined
      throw error
    })
    return this.listed
  }

  private async readTools(): Promise<UpstreamTool[]> {
    const tools: UpstreamTool[] = []
    let cursor: string | undefined
    do {
      const page = await this.client.listTools(cursor ? { cursor } : {})
      tools.push(...page.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Record<string, unknown> })))
      cursor = page.nextCursor
    } while (cursor)
    return tools
  }

  /** Calls one upstream tool and returns its result as the server sent it; `egress` gets the connections it made (proxied servers). */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { timeoutMs?: number; signal?: AbortSignal; egress?: (records: EgressRecord[]) => void } = {}
  ) {
    const window = this.egress?.track(randomUUID())
    try {
      return await this.client.callTool({ name, arguments: args }, undefined, { timeout: options.timeoutMs ?? 60_000, signal: options.signal })
    } finally {
      const records = window?.()
      if (records?.length) options.egress?.(records)
    }
  }

  /** Pings the upstream: true when it answers in time. */
  async ping(timeoutMs = 5000): Promise<boolean> {
    try {
      await this.client.ping({ timeout: timeoutMs })
      return true
    } catch {
      return false
    }
  }

  /** Closes the transport (and so ends a stdio child), then its egress endpoint. */
  async close(): Promise<void> {
    try {
      await this.client.close()
    } finally {
      await this.egress?.close()
    }
  }
}
