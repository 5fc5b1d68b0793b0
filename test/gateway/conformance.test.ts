import { spawn } from 'node:child_process'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAgentGateway, type AgentGateway } from '../../src/main/gateway'
import { createHost, gatewayDeps, type Host } from '../../src/main/host'
import { makeTempDir } from '../support/temp-home'

// The official MCP conformance suite (`@modelcontextprotocol/conformance`, server scenarios)
// against the real gateway. Version 0.1.13 is pinned: the later releases need Node 22
// (`fs.globSync`), and this project runs on Node 20. The suite cannot send a bearer token, so a
// loopback proxy of this test adds the agent's.

/** The scenarios that apply to a tools-only server, each of which must pass. */
const applicable = ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams']

/** The scenarios that do not apply, and why (the test lists them, so a new one is noticed). */
const notApplicable: Record<string, string> = {
  'logging-set-level': 'the gateway offers no logging capability',
  'completion-complete': 'the gateway offers no completions',
  'tools-call-simple-text': "calls the suite's own test tool",
  'tools-call-image': "calls the suite's own test tool",
  'tools-call-audio': "calls the suite's own test tool",
  'tools-call-embedded-resource': "calls the suite's own test tool",
  'tools-call-mixed-content': "calls the suite's own test tool",
  'tools-call-with-logging': "calls the suite's own test tool",
  'tools-call-error': "calls the suite's own test tool",
  'tools-call-with-progress': "calls the suite's own test tool (progress: test/gateway/long-work.test.ts)",
  'tools-call-sampling': "calls the suite's own test tool (and sampling)",
  'tools-call-elicitation': "calls the suite's own test tool (and elicitation)",
  'json-schema-2020-12': "lists the suite's own test tool",
  'elicitation-sep1034-defaults': "calls the suite's own test tool (and elicitation)",
  'elicitation-sep1330-enums': "calls the suite's own test tool (and elicitation)",
  'server-sse-polling': "calls the suite's own test_reconnection tool (resumption: test/gateway/long-work.test.ts)",
  'resources-list': 'a tools-only server has no resources',
  'resources-read-text': 'a tools-only server has no resources',
  'resources-read-binary': 'a tools-only server has no resources',
  'resources-templates-read': 'a tools-only server has no resources',
  'resources-subscribe': 'a tools-only server has no resources',
  'resources-unsubscribe': 'a tools-only server has no resources',
  'prompts-list': 'a tools-only server has no prompts',
  'prompts-get-simple': 'a tools-only server has no prompts',
  'prompts-get-with-args': 'a tools-only server has no prompts',
  'prompts-get-embedded-resource': 'a tools-only server has no prompts',
  'prompts-get-with-image': 'a tools-only server has no prompts',
  'dns-rebinding-protection':
    "through the bearer proxy every Host is rewritten; the gateway's own Host/Origin checks are attacked in test/security/attack-gateway.test.ts"
}

const conformanceBin = join(__dirname, '../..', 'node_modules', '.bin', 'conformance')

function runConformance(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(conformanceBin, args, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' } })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('close', (code) => resolve({ code, output }))
  })
}

/** A loopback proxy to the gateway that adds the agent's bearer token (and the gateway's own Host). */
async function bearerProxy(target: string, token: string): Promise<{ url: string; server: Server }> {
  const upstream = new URL(target)
  const server = createServer((request, response) => {
    const headers = { ...request.headers, host: upstream.host, authorization: `Bearer ${token}` }
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: request.method, headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(response)
    })
    forward.on('error', () => response.destroy())
    response.on('close', () => forward.destroy())
    request.pipe(forward)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server }
}

describe('the official MCP conformance suite (server scenarios) against the gateway', { timeout: 120_000 }, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let gateway: AgentGateway
  let proxy: { url: string; server: Server }

  beforeAll(async () => {
    dir = makeTempDir('airlock-conformance-')
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    const { token } = host.agents.service.create('conformance', { profile: { capabilities: ['files'], ask: 'never' } })
    gateway = await startAgentGateway({ deps: gatewayDeps(host), port: 0, logError: () => undefined })
    proxy = await bearerProxy(gateway.url, token)
  })
  afterAll(async () => {
    proxy?.server.close()
    await gateway?.close()
    await host?.dispose()
    dir?.remove()
  })

  it('every server scenario of the suite is either run here or listed as not applicable, with why', async () => {
    const listed = await runConformance(['list', '--server'])
    const scenarios = [...listed.output.matchAll(/^\s+- (\S+)$/gm)].map((match) => match[1]!)
    expect(scenarios.length).toBeGreaterThan(0)
    expect(scenarios.filter((name) => !applicable.includes(name) && !(name in notApplicable))).toEqual([])
  })

  for (const scenario of applicable) {
    it(`passes ${scenario}`, async () => {
      const result = await runConformance(['server', '--url', proxy.url, '--scenario', scenario])
      expect(result.output, result.output.slice(-2000)).toMatch(/Passed: (\d+)\/\1, 0 failed/)
      expect(result.code).toBe(0)
    })
  }
})
