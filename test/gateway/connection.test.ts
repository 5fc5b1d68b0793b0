import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentGateway } from '../../src/main/gateway'
import { createHost, startHostGateway, type Host } from '../../src/main/host'
import { makeTempDir } from '../support/temp-home'

// The Agents view's connection snippets through the contract (`agents.connection`): the URL of the
// gateway running on the home, else the configured port.

describe('agents.connection', () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  const connection = (agentId: string) => host.dispatch('airlock:agents:connection', { agentId }, { transport: 'websocket' })

  beforeAll(async () => {
    dir = makeTempDir('airlock-gateway-connection-')
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    host.agents.service.create('coder')
  })
  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  it('without a running gateway: the configured gateway.port', async () => {
    host.settings.set('gateway.port', 7999)
    expect(await connection('coder')).toMatchObject({
      ok: true,
      value: { url: 'http://127.0.0.1:7999/mcp', snippets: { claudeCode: expect.stringContaining('http://127.0.0.1:7999/mcp') } }
    })
  })

  it('with the gateway running: its actual URL (from run/gateway.json); after it stops, the file is gone', async () => {
    const gateway: AgentGateway = await startHostGateway(host, { port: 0, logError: () => undefined })
    try {
      expect(await connection('coder')).toMatchObject({ ok: true, value: { url: gateway.url } })
    } finally {
      await gateway.close()
    }
    expect(existsSync(join(dir.path, 'run', 'gateway.json'))).toBe(false)
    expect(await connection('coder')).toMatchObject({ ok: true, value: { url: 'http://127.0.0.1:7999/mcp' } })
  })

  it('an unknown agent is not_found; a bad id is refused by the contract', async () => {
    expect(await connection('ghost')).toMatchObject({ ok: false, error: { code: 'agent.not_found' } })
    expect(await connection('../etc')).toMatchObject({ ok: false, error: { code: 'validation_failed' } })
  })
})
