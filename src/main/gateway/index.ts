// The agent gateway (SPEC §8): MCP over Streamable HTTP for agents, its address file, the stdio
// bridge and the connection snippets the Agents view shows.
export { startAgentGateway, type AgentGateway, type AgentGatewayOptions } from './agent-gateway'
export { progressEveryMs, type ApprovalWaits, type ApprovalWaitUpdate } from './call-progress'
export { connectionSnippets, tokenPlaceholder } from './connection-snippets'
export { addressIsLive, gatewayAddressFile, GatewayNotTrusted, gatewayUrl, readGatewayAddress, trustedGatewayAddress, writeGatewayAddress, type GatewayAddress } from './gateway-address'
export { gatewayErrorCodes, GatewayRefusal } from './gateway-errors'
export { maxRequestBytes } from './gateway-http'
export { startHostGateway } from './host-gateway'
