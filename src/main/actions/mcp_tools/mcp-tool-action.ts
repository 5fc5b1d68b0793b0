import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { AirlockError } from '@shared/errors'
import { z } from 'zod'
import { redactText, type ActionContext, type ActionOutcome, type ActionResolver, type AnyActionSpec } from '../../core'
import type { EgressRecord } from '@shared/network'
import type { UpstreamMcpClient } from '../../core/live-resources/data'
import { recordEgress } from '../run_command/execution-profile'
import { mcpEndpoint, mcpLineage, mcpServerRequirement, runsSandboxed, sandboxRefusal, secretsOf, splitProxiedName } from './mcp-servers'
import { firstText, upstreamData } from './upstream-result'

/** The largest arguments object passed upstream, as JSON. */
const maxArgumentBytes = 1024 * 1024

/**
 * The input of every proxied tool: any JSON object, passed to the upstream unchanged. Airlock does
 * not repeat the upstream's schema: the upstream validates its own arguments (and says what is
 * wrong); the gateway shows its schema to the agent (`listMcpTools`).
 */
export const proxiedToolInputSchema = z
  .record(z.string(), z.unknown())
  .refine((args) => Buffer.byteLength(JSON.stringify(args)) <= maxArgumentBytes, `must be at most ${maxArgumentBytes} bytes as JSON`)

/** A proxied tool's input: the upstream tool's arguments. */
export type ProxiedToolInput = z.infer<typeof proxiedToolInputSchema>

/**
 * The spec of `<server>__<tool>` (SPEC §5.3): calls `tool` on the agent's attached server
 * `server`, through a session-scoped `mcp` requirement (one connection per session and server).
 * `data` is the upstream's result (content, structuredContent, isError), bounded by the agent's
 * output limit and without the server's secrets; an upstream `isError` makes the call `error`.
 */
export function proxiedToolSpec(server: string, tool: string): AnyActionSpec {
  return {
    name: `${server}__${tool}`,
    description: `Tool ${tool} of the MCP server ${server}, proxied by Airlock (the upstream's input schema applies).`,
    inputSchema: proxiedToolInputSchema,
    // An upstream tool may do anything: it counts as executing.
    effects: 'execute',
    // Typed as any spec (what a resolver answers); the dispatcher has validated the input with the schema above.
    executor: { execute: (context) => callUpstream(context as ActionContext<ProxiedToolInput>, server, tool) }
  }
}

/**
 * The resolver for `ActionRegistry.registerResolver`: any `<server>__<tool>` name gets a spec; the
 * server is looked up in the calling agent's `mcpServers` when the call runs (the dispatcher has
 * already checked that `<server>__*` or the exact name is among the agent's tools).
 */
export const mcpToolResolver: ActionResolver = (name) => {
  const parts = splitProxiedName(name)
  return parts ? proxiedToolSpec(parts.server, parts.tool) : undefined
}

async function callUpstream(context: ActionContext<ProxiedToolInput>, serverName: string, tool: string): Promise<ActionOutcome> {
  const { agent, signal } = context
  const server = agent.profile.mcpServers.find((s) => s.name === serverName)
  if (!server)
    return { status: 'error', error: { code: 'mcp.unknown_server', message: `No MCP server named ${serverName} is attached to agent ${agent.agentId}.` } }
  // The host fills agent.secrets; the profile's own are added in case a caller did not.
  const secrets = [...new Set([...(agent.secrets ?? []), ...secretsOf(agent.profile)])]
  // Where the server runs, for history: in a sandbox, or on the host because the operator said unsafe.
  const sandbox = server.command ? { sandboxed: runsSandboxed(server) } : {}
  const mcp = { server: server.name, tool, transport: server.command ? 'stdio' : 'http', endpoint: mcpEndpoint(server), ...sandbox }
  context.touched(mcpLineage(server))
  let raw: unknown
  let provider: Record<string, unknown> = { providerId: 'mcp' }
  try {
    const handle = await context.holdForSession(mcpServerRequirement(server, agent))
    provider = { providerId: handle.providerId, ...providerFacts(handle.meta) }
    // A server with network proxy: the endpoints it reached (or was refused) while the call ran.
    const egress = (records: EgressRecord[]) => recordEgress(context, records)
    raw = await (handle.resource as UpstreamMcpClient).callTool(tool, context.input, { timeoutMs: agent.profile.limits.timeoutSeconds * 1000, signal, egress })
  } catch (error) {
    if (signal.aborted) throw error
    const refusal = sandboxRefusal(server, error)
    if (refusal)
      return {
        ...refusal,
        error: { code: refusal.error!.code, message: redactText(refusal.error!.message, secrets) },
        meta: { ...refusal.meta, mcp, provider }
      }
    return { ...upstreamFailure(error, secrets), meta: { mcp, provider } }
  }
  const { data, redactions } = upstreamData(raw, secrets, agent.profile.limits.outputBytes)
  const diagnostics = [
    ...(redactions > 0 ? [`${redactions} occurrence(s) of the server's configured secrets were replaced in its result`] : []),
    ...(data.truncated ? [`the upstream result was cut to the agent's output limit of ${agent.profile.limits.outputBytes} bytes`] : [])
  ]
  const meta = { mcp, provider }
  if (data.isError) {
    const said = firstText(data)
    return {
      status: 'error',
      data,
      diagnostics,
      meta,
      error: { code: 'mcp.tool_error', message: redactText(`${server.name}__${tool} failed upstream${said ? `: ${said}` : ''}`, secrets) }
    }
  }
  return { data, diagnostics, meta }
}

/**
 * What the provider observed of where a stdio server runs (kept in history with the call): in a
 * sandbox and with which isolation, or on the host because the operator marked it unsafe.
 */
function providerFacts(meta: Record<string, unknown>): Record<string, unknown> {
  return {
    ...(typeof meta.sandboxed === 'boolean' ? { sandboxed: meta.sandboxed } : {}),
    ...(meta.isolation && typeof meta.isolation === 'object' ? { isolation: meta.isolation } : {})
  }
}

/** A thrown failure (connection, protocol, timeout) as an outcome whose message carries no secret. */
function upstreamFailure(error: unknown, secrets: readonly string[]): ActionOutcome {
  const message = redactText(error instanceof Error ? error.message : String(error), secrets)
  // The SDK's McpError carries the JSON-RPC code (-32001: request timed out).
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return { status: 'timed_out', error: { code: 'mcp.timeout', message } }
  if (error instanceof AirlockError) return { status: 'error', error: { code: error.code, message } }
  return { status: 'error', error: { code: 'mcp.upstream_error', message } }
}
