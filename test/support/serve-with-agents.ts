import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from '@playwright/test'
import { startServeWithGateway } from './mcp-gateway-client'
import { runAirlockAsync } from './run-cli'
import { makeTempDir } from './temp-home'

/** A running `airlock serve` with its console URL, gateway URL, home and each agent's token. */
export type ServedWithAgents = { consoleUrl: string; gatewayUrl: string; home: string; tokens: Record<string, string>; stop(): Promise<void> }

/**
 * Makes each agent with the real CLI (`agent create --profile`) in a fresh home, then starts the
 * real `airlock serve` on it (console and gateway on free ports): the setup of the e2e tests that
 * drive agents through the gateway while the operator watches in Chromium.
 */
export async function serveWithAgents(prefix: string, agents: Record<string, Record<string, unknown>>): Promise<ServedWithAgents> {
  const dir = makeTempDir(prefix, { outsideTmp: true })
  const home = join(dir.path, 'home')
  const tokens: Record<string, string> = {}
  for (const [id, profile] of Object.entries(agents)) {
    const file = join(dir.path, `${id}.json`)
    writeFileSync(file, JSON.stringify(profile))
    const created = await runAirlockAsync(['agent', 'create', id, '--json', '--profile', file, '--home', home])
    expect(created.code, created.stderr).toBe(0)
    tokens[id] = (JSON.parse(created.stdout) as { token: string }).token
  }
  const served = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home])
  return {
    consoleUrl: served.consoleLine.replace('Airlock console: ', ''),
    gatewayUrl: served.gatewayLine.replace('Agent gateway: ', ''),
    home,
    tokens,
    async stop() {
      await served.stop()
      dir.remove()
    }
  }
}
