import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SettingsService } from '../../src/main/console/settings-service'
import { openStore } from '../../src/main/store'
import { callTool, connectAgent, initializeBody, mcpHeaders, rawRequest, startServeWithGateway } from '../support/mcp-gateway-client'
import { runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

// `airlock serve` as a real process: the gateway's URL is its second line, a real SDK client
// works through it, and its address file lives exactly as long as the gateway.

let dir: ReturnType<typeof makeTempDir>
let home: string
beforeEach(() => {
  // Searchable, as a real home's parents are: a home sandboxes cannot reach is warned about at start.
  dir = makeTempDir('airlock-cli-gateway-', { outsideTmp: true })
  home = join(dir.path, 'home')
})
afterEach(() => dir.remove())

const lines = (text: string) => text.split('\n').filter((line) => line.length > 0)

/** Creates an agent through the CLI (files only, never asks) and returns its token. */
function createAgent(id: string): string {
  writeFileSync(join(dir.path, `${id}.json`), JSON.stringify({ capabilities: ['files'], ask: 'never' }))
  const created = runAirlock(['agent', 'create', id, '--json', '--profile', join(dir.path, `${id}.json`), '--home', home])
  expect(created.code).toBe(0)
  return (JSON.parse(created.stdout) as { token: string }).token
}

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const port = (probe.address() as { port: number }).port
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

describe('airlock serve starts the agent gateway', { timeout: 120_000 }, () => {
  it('prints the gateway URL as its second line; an SDK client writes and reads through it; SIGTERM ends the session and removes the address file', async () => {
    const token = createAgent('coder')
    const served = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home])
    const addressFile = join(home, 'run', 'gateway.json')
    let sessionId: string | undefined
    try {
      expect(served.consoleLine).toMatch(/^Airlock console: http:\/\/127\.0\.0\.1:\d+\/\?token=/)
      const url = /^Agent gateway: (http:\/\/127\.0\.0\.1:(\d+)\/mcp)$/.exec(served.gatewayLine)
      expect(url).not.toBeNull()
      expect(Number(url![2])).toBeGreaterThan(0)
      const address = JSON.parse(readFileSync(addressFile, 'utf8'))
      expect(address).toMatchObject({ url: url![1], port: Number(url![2]), pid: served.child.pid })
      expect(statSync(addressFile).mode & 0o777).toBe(0o600)
      expect(statSync(join(home, 'run')).mode & 0o777).toBe(0o700)

      const agent = await connectAgent(url![1]!, token)
      sessionId = agent.transport.sessionId
      expect((await agent.client.listTools()).tools.map((t) => t.name)).toContain('write_file')
      expect((await callTool(agent.client, 'write_file', { path: 'hello.txt', content: 'over HTTP' })).structuredContent).toMatchObject({
        ok: true,
        data: { bytes: 9 }
      })
      expect((await callTool(agent.client, 'read_file', { path: 'hello.txt' })).structuredContent).toMatchObject({ ok: true, data: { content: 'over HTTP' } })
      expect(readFileSync(join(home, 'workspaces', 'coder', 'hello.txt'), 'utf8')).toBe('over HTTP')

      expect((await rawRequest(url![1]!, { headers: mcpHeaders('alk_wrong'), body: JSON.stringify(initializeBody) })).status).toBe(401)
      expect(
        (await rawRequest(url![1]!, { headers: { ...mcpHeaders(token), host: `attacker.example:${url![2]}` }, body: JSON.stringify(initializeBody) })).status
      ).toBe(421)
    } finally {
      expect(await served.stop()).toBe(0)
    }
    expect(existsSync(addressFile)).toBe(false)
    const store = openStore(join(home, 'airlock.db'))
    try {
      expect(store.sessions.listByAgent('coder').find((s) => s.id === sessionId)).toMatchObject({
        transport: 'mcp-http',
        endReason: 'shutdown',
        endedAt: expect.any(String)
      })
    } finally {
      store.close()
    }
  })

  it('without --gateway-port the gateway.port setting is used', async () => {
    const port = await freePort()
    mkdirSync(home, { recursive: true })
    const store = openStore(join(home, 'airlock.db'))
    new SettingsService(store.settings).set('gateway.port', port)
    store.close()
    const served = await startServeWithGateway(['--port', '0', '--home', home])
    try {
      expect(served.gatewayLine).toBe(`Agent gateway: http://127.0.0.1:${port}/mcp`)
    } finally {
      expect(await served.stop()).toBe(0)
    }
  })

  it('a gateway port in use: exit 1, one line naming --gateway-port, nothing left running or written', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const result = runAirlock(['serve', '--no-open', '--port', '0', '--gateway-port', String(port), '--home', home])
      expect(result.code).toBe(1)
      expect(lines(result.stderr)).toEqual([
        `airlock: Port ${port} on 127.0.0.1 is in use, so the agent gateway cannot start; choose another with --gateway-port (or the gateway.port setting).`
      ])
      expect(result.stdout).toBe('')
      expect(existsSync(join(home, 'run', 'gateway.json'))).toBe(false)
    } finally {
      blocker.close()
    }
  })
})
