// Proxied upstream MCP tools `<server>__<tool>` (SPEC §5.3) of the servers attached to an agent.
export { mcpToolResolver, proxiedToolInputSchema, proxiedToolSpec, type ProxiedToolInput } from './mcp-tool-action'
export { listMcpTools, upstreamListsTool, type McpListFailure, type ProxiedTool, type SessionHolder } from './mcp-tool-list'
export { mcpEndpoint, mcpServerRequirement, proxiedToolName, runsSandboxed, secretsOf, serverStateDir, splitProxiedName } from './mcp-servers'
export type { UpstreamToolData } from './upstream-result'
