import { AirlockError } from '@shared/errors'
import { redactText, toolEnabled, type ActionAgent, type ResourceHandle, type ResourceRequirementInput } from '../../core'
import type { UpstreamMcpClient } from '../../core/live-resources/data'
import { mcpServerRequirement, proxiedToolName, sandboxRefusal, secretsOf, splitProxiedName } from './mcp-servers'

/** A proxied tool as the gateway lists it to the agent: its Airlock name and the upstream's description and input schema. */
export type ProxiedTool = { name: string; server: string; tool: string; description?: string; inputSchema: Record<string, unknown> }

/** A server whose tools could not be listed, and why (secrets redacted). */
export type McpListFailure = { server: string; code: string; message: string }

/** Where the session's connections are held: the dispatcher's `sessions`. */
export type SessionHolder = { hold(sessionId: string, requirement: ResourceRequirementInput, signal?: AbortSignal): Promise<ResourceHandle> }

/** The names the action registry accepts (what MCP clients accept). */
const toolNamePattern = /^[A-Za-z0-9_.-]{1,128}$/

/**
 * Lists the proxied tools of an agent's attached MCP servers for the gateway: for each server the
 * agent may use (`<server>__*` or a single `<server>__<tool>` among its tools), the session's
 * connection is held (the same one its calls use) and the upstream's tools are listed under
 * `<server>__<tool>`. A server that cannot be reached, or is refused, is reported in `failures`
 * and does not hide the others; a tool whose name MCP clients would not accept is left out.
 */
export async function listMcpTools(input: {
  agent: ActionAgent
  sessions: SessionHolder
  signal?: AbortSignal
}): Promise<{ tools: ProxiedTool[]; failures: McpListFailure[] }> {
  const { agent, sessions, signal } = input
  const secrets = [...(agent.secrets ?? []), ...secretsOf(agent.profile)]
  const tools: ProxiedTool[] = []
  const failures: McpListFailure[] = []
  for (const server of agent.profile.mcpServers) {
    const enabled = (tool: string) => toolEnabled(agent.tools, proxiedToolName(server.name, tool))
    if (![...agent.tools].some((name) => name.startsWith(`${server.name}__`))) continue
    try {
      const handle = await sessions.hold(agent.sessionId, mcpServerRequirement(server, agent), signal)
      for (const tool of await (handle.resource as UpstreamMcpClient).listTools()) {
        const name = proxiedToolName(server.name, tool.name)
        if (!toolNamePattern.test(name)) {
          failures.push({
            server: server.name,
            code: 'mcp.tool_name_unusable',
            message: `the upstream tool ${JSON.stringify(tool.name)} has a name MCP clients do not accept as ${name}; it is not offered`
          })
        } else if (enabled(tool.name)) {
          tools.push({
            name,
            server: server.name,
            tool: tool.name,
            ...(tool.description ? { description: tool.description } : {}),
            inputSchema: tool.inputSchema
          })
        }
      }
    } catch (error) {
      const refusal = sandboxRefusal(server, error)
      const code = refusal ? refusal.error!.code : error instanceof AirlockError ? error.code : 'mcp.upstream_error'
      const message = refusal ? refusal.error!.message : error instanceof Error ? error.message : String(error)
      failures.push({ server: server.name, code, message: redactText(message, secrets) })
    }
  }
  return { tools, failures }
}

/**
 * Whether `<server>__<tool>` is a tool the session's upstream listed (and the agent may use):
 * `listed`, `not_listed`, or `unverifiable` when the upstream could not be reached or listed (the
 * call then runs and records why it failed). The list is the one the session's connection read
 * (each connection lists once), the same the agent was shown by tools/list.
 */
export async function upstreamListsTool(input: {
  agent: ActionAgent
  sessions: SessionHolder
  name: string
  signal?: AbortSignal
}): Promise<'listed' | 'not_listed' | 'unverifiable'> {
  const { agent, name } = input
  const parts = splitProxiedName(name)
  const server = parts && agent.profile.mcpServers.find((s) => s.name === parts.server)
  if (!parts || !server || !toolNamePattern.test(name) || !toolEnabled(agent.tools, name)) return 'not_listed'
  let tools: { name: string }[]
  try {
    const handle = await input.sessions.hold(agent.sessionId, mcpServerRequirement(server, agent), input.signal)
    tools = await (handle.resource as UpstreamMcpClient).listTools()
  } catch {
    return 'unverifiable'
  }
  return tools.some((tool) => tool.name === parts.tool) ? 'listed' : 'not_listed'
}
