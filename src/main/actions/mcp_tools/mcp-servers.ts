import { AirlockError } from '@shared/errors'
import { basename, dirname, join } from 'node:path'
import type { EffectiveAgentProfile, McpServerConfig } from '@shared/agents'
import { secretVariants, type ActionAgent, type ActionOutcome, type LineageEndpoint, type ResourceRequirementInput } from '../../core'

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

/** The isolation a sandboxed server's connection demands: every axis (the provider reports them from the sandbox it starts). */
const sandboxDemand = { processContained: true, hostFilesystemRestricted: true, privilegeEscalationBlocked: true, syscallsRestricted: true }

/** True for a stdio server that must run in a sandbox (not marked `unsafe: true`). */
export function runsSandboxed(server: McpServerConfig): boolean {
  return server.command !== undefined && server.unsafe !== true
}

/**
 * A stdio server's private state folder, its HOME and cwd: `<home>/mcp-state/<agent>/<server>`,
 * beside the workspaces folder and never inside the agent's workspace (whatever an agent writes
 * must not be on its server's start-up, module or config path). A workspace is always
 * `<home>/workspaces/<agent>`; the provider checks the exact shape again under the real home.
 */
export function serverStateDir(workspace: string, server: McpServerConfig): string {
  return join(dirname(dirname(workspace)), 'mcp-state', basename(workspace), server.name)
}

/**
 * The session-scoped `mcp` requirement of a server, as the mcp provider's config. A stdio server
 * not marked `unsafe` runs sandboxed: its state folder out of the agent's workspace (the provider
 * checks its shape under the home and opens it without following links), its
 * `readOnlyPaths`, its own `network` (default none) and the agent's CPU, memory and process limits,
 * and the requirement demands every isolation axis, so nothing less than a sandbox can serve it.
 * An unsafe one runs on the host, as the sandbox uid, in the same state folder. An HTTP server takes the agent's network mode (off loopback it
 * needs `full`). The config holds secrets: it is never recorded.
 */
export function mcpServerRequirement(server: McpServerConfig, agent: Pick<ActionAgent, 'workspace' | 'profile'>): ResourceRequirementInput {
  const base = { kind: 'mcp', scope: 'session', resourceKey: `mcp:${server.name}`, meta: { server: server.name, endpoint: mcpEndpoint(server) } } as const
  if (server.command) {
    const stdio = {
      transport: 'stdio',
      command: server.command[0],
      args: server.command.slice(1),
      stateDir: serverStateDir(agent.workspace, server),
      ...(server.env ? { env: server.env } : {})
    } as const
    if (server.unsafe === true) return { ...base, config: { ...stdio, unsafe: true } }
    const { cpuSeconds, memoryMb, pids } = agent.profile.limits
    return {
      ...base,
      config: { ...stdio, ...(server.readOnlyPaths ? { readOnlyPaths: server.readOnlyPaths } : {}) },
      policy: { networkMode: server.network ?? 'none', limits: { cpuSeconds, memoryMb, pids } },
      requiredCapabilities: { isolation: sandboxDemand }
    }
  }
  return {
    ...base,
    config: { transport: 'http', url: server.url, ...(server.headers ? { headers: server.headers } : {}) },
    policy: { networkMode: agent.profile.network === 'full' ? 'full' : 'none' }
  }
}

/**
 * The error codes that mean a sandboxed server was refused before it ran: no provider could give
 * it a sandbox (bubblewrap missing, a read-only path or program refused at the probe), or its
 * state folder was refused (a link on its path, not where it must be).
 */
const refusalCodes = new Set([
  'execution_resource.provider_unavailable',
  'execution_resource.bubblewrap_unavailable',
  'sandbox.path_refused',
  'provider.workspace_boundary'
])

/**
 * A stdio server that must run sandboxed and could not: blocked (fail closed, never run on the
 * host instead), with the provider's reason and the operator's choices. Anything else (an upstream
 * that started and would not answer) is not a refusal.
 */
export function sandboxRefusal(server: McpServerConfig, error: unknown): ActionOutcome | undefined {
  if (!runsSandboxed(server) || !(error instanceof AirlockError) || !refusalCodes.has(error.code)) return undefined
  const said = error instanceof Error ? error.message : String(error)
  const reason = `the MCP server ${server.name} is a stdio command and runs only inside a sandbox, which was refused or is unavailable here (${said}); fix that, or the operator can mark the server "unsafe": true to run it on the host without one`
  return { status: 'blocked', meta: { policy: { decision: 'deny', rule: 'mcp.sandbox_refused', reason } }, error: { code: 'policy.blocked', message: reason } }
}
