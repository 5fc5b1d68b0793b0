import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { listMcpTools, upstreamListsTool, type McpListFailure, type SessionHolder } from '../actions/mcp_tools'
import type { ActionAgent, ActionRegistry, AnyActionSpec } from '../core'
import { gatewayErrorCodes, GatewayRefusal, maxEchoChars, quoteForMessage } from './gateway-errors'

/** JSON Schemas of the built-in specs, computed once per spec. */
const schemas = new WeakMap<AnyActionSpec, Tool['inputSchema']>()

/**
 * The JSON Schema MCP clients see for a spec: derived from its zod input (`io: 'input'`, what a
 * caller may send). Refinements JSON Schema cannot express are left to the dispatcher's own
 * validation, which always runs.
 */
export function toolInputSchema(spec: AnyActionSpec): Tool['inputSchema'] {
  let schema = schemas.get(spec)
  if (!schema) {
    const { $schema: _dialect, ...json } = z.toJSONSchema(spec.inputSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
    schema = { ...json, type: 'object' } as Tool['inputSchema']
    schemas.set(spec, schema)
  }
  return schema
}

/** A built-in spec as an MCP tool: name, description, input schema, and whether it only reads. */
export function builtinTool(spec: AnyActionSpec): Tool {
  return { name: spec.name, description: spec.description, inputSchema: toolInputSchema(spec), annotations: { readOnlyHint: spec.effects === 'read' } }
}

/**
 * A built-in tool as this agent sees it: `run_code` offers only the runtimes the agent may use
 * (its profile's `runtimes`, when it names any), so a model is not offered one it is then refused.
 */
export function agentTool(spec: AnyActionSpec, agent: Pick<ActionAgent, 'profile'>): Tool {
  const tool = builtinTool(spec)
  const runtimes = agent.profile.runtimes
  const language = (tool.inputSchema.properties as Record<string, { enum?: unknown[] }> | undefined)?.language
  if (spec.name !== 'run_code' || runtimes.length === 0 || !Array.isArray(language?.enum)) return tool
  const allowed = language.enum.filter((value) => runtimes.includes(value as never))
  return { ...tool, inputSchema: { ...tool.inputSchema, properties: { ...tool.inputSchema.properties, language: { ...language, enum: allowed } } } }
}

/**
 * The tools of a session (SPEC §8: the agent's enabled capabilities): its built-in tools with
 * schemas from their zod inputs, then the proxied `<server>__<tool>` tools of its attached MCP
 * servers with the upstream's schemas. An upstream that cannot be listed is reported in
 * `failures` and does not hide the rest.
 */
export async function listSessionTools(input: {
  agent: ActionAgent
  registry: Pick<ActionRegistry, 'resolve'>
  holds: SessionHolder
  signal?: AbortSignal
}): Promise<{ tools: Tool[]; failures: McpListFailure[] }> {
  const builtin: Tool[] = []
  for (const name of input.agent.tools) {
    if (name.includes('__')) continue
    const spec = input.registry.resolve(name)
    if (spec) builtin.push(agentTool(spec, input.agent))
  }
  const proxied = await listMcpTools({ agent: input.agent, sessions: input.holds, signal: input.signal })
  const upstream: Tool[] = proxied.tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? `Tool ${tool.tool} of the MCP server ${tool.server}, proxied by Airlock.`,
    inputSchema: { ...tool.inputSchema, type: 'object' } as Tool['inputSchema']
  }))
  return { tools: [...builtin, ...upstream], failures: proxied.failures }
}

/**
 * Checks a `tools/call` names a tool this session offers before it is dispatched; an unknown tool
 * is the JSON-RPC error `-32602` naming it (cut to a bounded length), and nothing is recorded (no
 * call started). A proxied `<server>__<tool>` must be one the session's upstream listed: an
 * upstream is never asked to run a tool it did not offer (when it cannot be reached to tell, the
 * call runs and records that failure). The arguments are not judged here: the dispatcher
 * validates them against the tool's schema and an invalid call ends as a recorded result with
 * `isError` and the bad fields named, which the model sees and can correct (MCP reports input
 * validation errors as tool execution errors).
 */
export async function checkToolCall(input: {
  agent: ActionAgent
  registry: Pick<ActionRegistry, 'resolve'>
  holds: SessionHolder
  name: string
  signal?: AbortSignal
}): Promise<void> {
  const { agent, name } = input
  const offered = name.includes('__')
    ? (await upstreamListsTool({ agent, sessions: input.holds, name, signal: input.signal })) !== 'not_listed'
    : agent.tools.has(name)
  if (!offered || !input.registry.resolve(name)) {
    throw new GatewayRefusal(
      gatewayErrorCodes.invalidParams,
      `Unknown tool: ${quoteForMessage(name)} is not a tool of agent ${agent.agentId} (tools/list shows its tools).`,
      {
        reason: 'unknown_tool',
        tool: name.length > maxEchoChars ? `${name.slice(0, maxEchoChars)}…` : name
      }
    )
  }
}
