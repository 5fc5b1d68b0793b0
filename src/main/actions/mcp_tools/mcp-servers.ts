import type { EffectiveAgentProfile, McpServerConfig } from '@shared/agents'
import { secretVariants, type ActionOutcome, type LineageEndpoint, type ResourceRequirementInput } from '../../core'

/** The separator of proxied tool names: `<server>__<tool>` (server names never contain it). */
export const toolSeparator = '__'

/** A server name as `mcpServerSchema` allows it. */
const serverNamePattern = /^[a-z0-9][a-z0-9_-]{0,39}$/

/** The proxied name of an upstream tool: `<server>__<tool>`. */
export function proxiedToolName(server: string, tool: string): string {
  return `${server}${toolSeparator}${tool}`
}

/** Splits a proxied tool name at its first `__` into server and upstream tool; undefined when it is not one. */
export function splitProxiedName(name: string): { server: string; tool: string } | undefined {
  const at = name.indexOf(toolSeparator)
  if (at <= 0) return undefined
  const server = name.slice(0, at)
  const tool = name.slice(at + toolSeparator.length)
  return serverNamePattern.test(server) && tool.length > 0 ? { server, tool } : undefined
}

/**
 * Every value Airlock must treat as secret in a profile: the `env` and `headers` values of its
 * MCP servers, and the credential alone of a header such as `Bearer <token>` (an upstream error
 * may echo the token without its scheme). The host puts these into `ActionAgent.secrets`, so the
 * dispatcher redacts them from every record; the MCP tools also keep them out of what they return.
 */
export function secretsOf(profile: Pick<EffectiveAgentProfile, 'mcpServers'>): string[] {
  return secretVariants(profile.mcpServers.flatMap((server) => [...Object.values(server.env ?? {}), ...Object.values(server.headers ?? {})]))
}

/**
 * The endpoint a server is recorded under (lineage, meta): `stdio:<command[0]>`, or the URL
 * without user info, query or fragment (where credentials tend to hide).
 */
export function mcpEndpoint(server: McpServerConfig): string {
  if (server.command) return `stdio:${server.command[0]}`
  const url = new URL(server.url!)
  return `${url.origin}${url.pathname}`
}

/** The lineage entry of a server. */
export function mcpLineage(server: McpServerConfig): LineageEndpoint {
  return { kind: 'mcp', endpoint: mcpEndpoint(server) }
}

/**
 * The session-scoped `mcp` requirement of a server: its command (argv) and `env`, or its URL and
 * `headers`, as the mcp provider's config; the agent's network mode as the policy (an HTTP server
 * that is not on loopback needs network `full`). The config holds secrets: it is never recorded.
 */
export function mcpServerRequirement(server: McpServerConfig, profile: Pick<EffectiveAgentProfile, 'network'>): ResourceRequirementInput {
  const config = server.command
    ? { transport: 'stdio', command: server.command[0], args: server.command.slice(1), ...(server.env ? { env: server.env } : {}) }
    : { transport: 'http', url: server.url, ...(server.headers ? { headers: server.headers } : {}) }
  return {
    kind: 'mcp',
    scope: 'session',
    resourceKey: `mcp:${server.name}`,
    config,
    policy: { networkMode: profile.network === 'full' ? 'full' : 'none' },
    meta: { server: server.name, endpoint: mcpEndpoint(server) }
  }
}

/**
 * A stdio server the operator did not mark `unsafe: true`: SPEC §4 runs such servers inside the
 * agent's isolating provider, which the mcp provider cannot do yet, so they are refused rather
 * than run on the host without a sandbox (fail closed). The outcome names the fix.
 */
export function unsandboxedRefusal(server: McpServerConfig): ActionOutcome | undefined {
  if (!server.command || server.unsafe === true) return undefined
  const reason = `the MCP server ${server.name} is a stdio command, and Airlock cannot run stdio MCP servers inside a sandbox yet; the operator can mark it "unsafe": true to run it on the host`
  return { status: 'blocked', meta: { policy: { decision: 'deny', rule: 'mcp.stdio_unsandboxed', reason } }, error: { code: 'policy.blocked', message: `${reason}.` } }
}
