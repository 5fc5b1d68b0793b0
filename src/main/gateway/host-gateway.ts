import type { Host } from '../host'
import { startAgentGateway, type AgentGateway } from './agent-gateway'
import { writeGatewayAddress } from './gateway-address'

/**
 * Starts the gateway of a shell's host (`airlock serve`, the desktop app): on `port`, else the
 * `gateway.port` setting (7411), with the host's approval queue reporting waiting calls, and writes its address to `<home>/run/gateway.json` for
 * `airlock mcp-stdio` and the Agents view. `close` ends its sessions, stops it and removes the file.
 */
export async function startHostGateway(
  host: Host,
  options: { port?: number; logError?: (message: string, error: unknown) => void } = {}
): Promise<AgentGateway> {
  const gateway = await startAgentGateway({ host, port: options.port ?? host.settings.get('gateway.port'), approvalWaits: host.approvals, logError: options.logError })
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
