// The agent gateway (SPEC §8): MCP over Streamable HTTP for agents and the stdio bridge. Its address
// file and the connection snippets the Agents view shows live in the console.
export { startAgentGateway, type AgentGateway, type AgentGatewayOptions, type GatewayDeps } from './agent-gateway'
export { progressEveryMs, type ApprovalWaits, type ApprovalWaitUpdate } from './call-progress'
export { gatewayErrorCodes, GatewayRefusal } from './gateway-errors'
export { maxRequestBytes } from './gateway-http'
