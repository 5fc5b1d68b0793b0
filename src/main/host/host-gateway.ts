import { startAgentGateway, type AgentGateway, type GatewayDeps } from '../gateway'
import { writeGatewayAddress } from '../console/gateway-address'
import type { Host } from './create-host'

/** The host as the gateway's port: what the gateway may reach, and nothing else. */
export function gatewayDeps(host: Pick<Host, 'agents' | 'settings' | 'appVersion' | 'store'>): GatewayDeps {
  const { service: agents, dispatcher } = host.agents
  return {
    appVersion: host.appVersion,
    settings: host.settings,
    authenticate: (token) => agents.authenticate(token),
    sessions: host.agents.sessions,
    registry: host.agents.registry,
    runs: { hooks: dispatcher.hooks, liveOutput: dispatcher.liveOutput, holds: dispatcher.sessions },
    initializations: {
      save: (sessionId, initialize) => host.store.sessions.saveMcpInitialize(sessionId, initialize),
      resumable: (sessionId, agentId, withinMs) => host.store.sessions.resumable(sessionId, agentId, withinMs)
    }
  }
}

/**
 * Starts the gateway of a shell's host (`airlock serve`, the desktop app): on `port`, else the
 * `gateway.port` setting (7411), with the host's approval queue reporting waiting calls, and writes its address to `<home>/run/gateway.json` for
 * `airlock mcp-stdio` and the Agents view. `close` ends its sessions, stops it and removes the file.
 */
export async function startHostGateway(
  host: Host,
  options: { port?: number; logError?: (message: string, error: unknown) => void } = {}
): Promise<AgentGateway> {
  const gateway = await startAgentGateway({
    deps: gatewayDeps(host),
    port: options.port ?? host.settings.get('gateway.port'),
    approvalWaits: host.approvals,
    logError: options.logError
  })
  let removeAddress: () => void
  try {
    removeAddress = writeGatewayAddress(host.paths.home, gateway)
  } catch (error) {
    await gateway.close()
    throw error
  }
  return {
    ...gateway,
    close: async () => {
      try {
        await gateway.close()
      } finally {
        removeAddress()
      }
    }
  }
}
