import { createServer, type Server } from 'node:http'
import { resolve } from 'node:path'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { McpServerConfig } from '@shared/agents'
import { listMcpTools, mcpToolResolver, secretsOf, type UpstreamToolData } from '../../src/main/actions/mcp_tools'
import type { ActionResult, ResourceEvent } from '../../src/main/core'
import type { UpstreamMcpClient } from '../../src/main/core/live-resources/data'
import { McpProvider, type McpConnection } from '../../src/main/providers'
import { isAlive } from '../support/processes'
import { dataActionHarness } from './data-action-harness'

/** Compile-time proof that the provider's live resource is what the action uses. */
export function structural(connection: McpConnection): UpstreamMcpClient {
  return connection
}

const everything = resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js')
const envCanary = 'env-canary-5b1f7c9e2d'
const headerCanary = 'header-canary-8a4d2e6f1c'
const wrongCanary = 'wrong-canary-3c7e9a1b5f'
const canaries = [envCanary, headerCanary, wrongCanary]

/** A real MCP server over Streamable HTTP that wants `Bearer <headerCanary>` and tells what it was sent. */
async function startAuthServer(): Promise<{ server: Server; url: string }> {
  const server = createServer(async (request, response) => {
    const authorization = String(request.headers.authorization)
    if (authorization !== `Bearer ${headerCanary}`) {
      response.writeHead(401, { 'content-type': 'text/plain' }).end(`unauthorized: ${authorization}`)
      return
    }
    const mcp = new McpServer({ name: 'auth-upstream', version: '1.0.0' })
    mcp.registerTool('whoami', { description: 'Says which credential it was sent' }, async () => ({
      content: [{ type: 'text', text: `you sent ${authorization}` }]
    }))
    mcp.registerTool('fail', { description: 'Always fails', inputSchema: { why: z.string() } }, async ({ why }) => ({
      isError: true,
      content: [{ type: 'text', text: `failed (${why}) with ${authorization}` }]
    }))
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    response.on('close', () => void transport.close())
    await mcp.connect(transport)
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => void transport.handleRequest(request, response, body ? JSON.parse(body) : undefined))
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp?via=test` }
}

describe('proxied MCP tools through the dispatcher and the real mcp provider', () => {
  const harness = dataActionHarness([])
  // A bwrap that is not there: a stdio server not marked unsafe must then be refused, never run on
  // the host (the sandboxed runs themselves are in test/integration/mcp-sandboxed.test.ts).
  harness.manager.registerProvider(new McpProvider({ home: harness.home.path, bwrapPath: '/nonexistent/bwrap' }))
  harness.registry.registerResolver(mcpToolResolver)
  const events: ResourceEvent[] = []
  harness.manager.events.on('*', (event) => events.push(event))
  const results: ActionResult[] = []
  let auth: Awaited<ReturnType<typeof startAuthServer>>
  let servers: McpServerConfig[]

  const agent = (tools = ['everything__*', 'auth__*', 'badauth__*', 'sandboxed__*', 'ghost__*']) => {
    const profile = { capabilities: ['mcp' as const], mcpServers: servers }
    return harness.agent(tools, profile, secretsOf(profile))
  }
  const call = async (tool: string, input: unknown, who = agent()) => {
    const result = await harness.call(tool, input, who)
    results.push(result)
    return result
  }
  const textOf = (result: ActionResult) => ((result.data as UpstreamToolData).content[0] as { text: string }).text

  beforeAll(async () => {
    auth = await startAuthServer()
    servers = [
      { name: 'everything', command: ['node', everything, 'stdio'], env: { CANARY_TOKEN: envCanary }, unsafe: true },
      { name: 'auth', url: auth.url, headers: { Authorization: `Bearer ${headerCanary}` } },
      { name: 'badauth', url: auth.url, headers: { Authorization: `Bearer ${wrongCanary}` } },
      { name: 'sandboxed', command: ['node', everything, 'stdio'] }
    ]
  })
  afterAll(async () => {
    await harness.close()
    auth.server.close()
  })

  it('secretsOf lists every env and header value, and the bare credential of a scheme header', () => {
    expect(secretsOf({ mcpServers: servers })).toEqual([envCanary, `Bearer ${headerCanary}`, headerCanary, `Bearer ${wrongCanary}`, wrongCanary])
  })

  it('everything__echo calls the upstream over stdio in a session connection; calls reuse it; the session end stops the server', async () => {
    const session = agent()
    const first = await call('everything__echo', { message: 'hello upstream' }, session)
    expect(first).toMatchObject({
      ok: true,
      status: 'success',
      meta: {
        mcp: { server: 'everything', tool: 'echo', transport: 'stdio', endpoint: 'stdio:node', sandboxed: false },
        provider: { providerId: 'mcp', sandboxed: false, isolation: { processContained: false, mechanism: 'host (unsafe)' } }
      }
    })
    expect(harness.manager.list({ scope: 'session', ownerId: session.sessionId })[0]!.meta).toMatchObject({ sandboxed: false, unsafe: true })
    expect(textOf(first)).toBe('Echo: hello upstream')
    expect(harness.history.ends.find((e) => e.callId === first.meta.callId)?.lineage).toEqual([{ kind: 'mcp', endpoint: 'stdio:node' }])
    await call('everything__echo', { message: 'again' }, session)
    const held = harness.manager.list({ scope: 'session', ownerId: session.sessionId })
    expect(held).toHaveLength(1)
    const pid = (held[0]!.resource as McpConnection).pid!
    expect(isAlive(pid)).toBe(true)
    await harness.dispatcher.sessions.end(session.sessionId)
    await expect.poll(() => isAlive(pid), { timeout: 5000 }).toBe(false)
  })

  it('the upstream validates the arguments: a missing field is its error, passed back', async () => {
    const result = await call('everything__echo', { wrong: 1 })
    expect(result).toMatchObject({ ok: false, status: 'error' })
    expect(JSON.stringify(result.error)).toMatch(/message/)
  })

  it("the server's env secret printed by the upstream reaches neither the agent nor any record", async () => {
    const result = await call('everything__get-env', {})
    expect(result.status).toBe('success')
    expect(textOf(result)).toContain('"CANARY_TOKEN": "[redacted]"')
    expect(result.diagnostics.join('\n')).toMatch(/1 occurrence\(s\) of the server's configured secrets were replaced/)
    const echoed = await call('everything__echo', { message: `the agent typed ${headerCanary}` })
    expect(textOf(echoed)).toBe('Echo: the agent typed [redacted]')
  })

  it('an HTTP server with a secret header: tools work, results and upstream errors are redacted, the URL endpoint is lineage', async () => {
    const whoami = await call('auth__whoami', {})
    expect(whoami).toMatchObject({ status: 'success', meta: { mcp: { transport: 'http', endpoint: auth.url.replace('?via=test', '') } } })
    expect(textOf(whoami)).toBe('you sent [redacted]')
    expect(harness.history.ends.find((e) => e.callId === whoami.meta.callId)?.lineage).toEqual([{ kind: 'mcp', endpoint: auth.url.replace('?via=test', '') }])
    const failed = await call('auth__fail', { why: 'testing' })
    expect(failed).toMatchObject({
      ok: false,
      status: 'error',
      error: { code: 'mcp.tool_error', message: 'auth__fail failed upstream: failed (testing) with [redacted]' },
      data: { isError: true }
    })
  })

  it('a connection the upstream refuses is an error that does not carry the header', async () => {
    const result = await call('badauth__whoami', {})
    expect(result).toMatchObject({
      ok: false,
      status: 'error',
      error: { code: 'provider.upstream_unavailable', message: expect.stringMatching(/could not connect to the upstream MCP server/) }
    })
  })

  it('a stdio server not marked unsafe is refused where bubblewrap cannot run (fail closed); unknown servers and tools not enabled are refused', async () => {
    const refused = await call('sandboxed__echo', { message: 'x' })
    expect(refused).toMatchObject({
      status: 'blocked',
      error: { code: 'policy.blocked' },
      meta: { policy: { rule: 'mcp.sandbox_refused' }, mcp: { server: 'sandboxed', sandboxed: true } }
    })
    expect(refused.error!.message).toMatch(/runs only inside a sandbox.*bwrap not found at \/nonexistent\/bwrap.*"unsafe": true/)
    expect(harness.manager.list({ scope: 'session' }).filter((handle) => handle.resourceKey === 'mcp:sandboxed')).toEqual([])
    expect(await call('ghost__echo', {})).toMatchObject({ status: 'error', error: { code: 'mcp.unknown_server' } })
    expect(await call('everything__echo', { message: 'x' }, agent(['auth__*']))).toMatchObject({
      status: 'blocked',
      meta: { policy: { rule: 'capability.not_enabled' } }
    })
    expect(await call('everything__echo', [1, 2])).toMatchObject({ status: 'error', error: { code: 'invalid_input' } })
  })

  it('listMcpTools lists the enabled upstream tools with their schemas, and says which servers failed and why', async () => {
    const session = agent(['everything__*', 'auth__whoami', 'badauth__*', 'sandboxed__*'])
    const { tools, failures } = await listMcpTools({ agent: session, sessions: harness.dispatcher.sessions })
    const echo = tools.find((t) => t.name === 'everything__echo')
    expect(echo).toMatchObject({
      server: 'everything',
      tool: 'echo',
      description: 'Echoes back the input string',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } } }
    })
    expect(tools.map((t) => t.name)).toContain('everything__get-env')
    expect(tools.filter((t) => t.server === 'auth').map((t) => t.name)).toEqual(['auth__whoami'])
    expect(failures.map((f) => [f.server, f.code])).toEqual([
      ['badauth', 'provider.upstream_unavailable'],
      ['sandboxed', 'policy.blocked']
    ])
    expect(JSON.stringify(failures)).not.toMatch(new RegExp(canaries.join('|')))
    // The listing held the session's connection: its calls use the same one.
    const before = harness.manager.list({ scope: 'session', ownerId: session.sessionId }).length
    await call('everything__echo', { message: 'listed' }, session)
    expect(harness.manager.list({ scope: 'session', ownerId: session.sessionId })).toHaveLength(before)
  })

  it('no canary appears in any result meta or error, in what history was handed, or in resource events', () => {
    expect(results.length).toBeGreaterThan(10)
    const pattern = new RegExp(canaries.join('|'))
    for (const result of results)
      expect(JSON.stringify({ meta: result.meta, error: result.error, diagnostics: result.diagnostics, data: result.data })).not.toMatch(pattern)
    expect(JSON.stringify(harness.history.starts)).not.toMatch(pattern)
    expect(JSON.stringify(harness.history.ends)).not.toMatch(pattern)
    expect(harness.history.starts.some((s) => JSON.stringify(s.inputSummary).includes('[redacted]'))).toBe(true)
    expect(events.length).toBeGreaterThan(5)
    expect(JSON.stringify(events)).not.toMatch(pattern)
  })
})
