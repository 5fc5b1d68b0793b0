import { createServer, type Server } from 'node:http'
import { resolve } from 'node:path'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isAlive } from '../../../../test/support/processes'
import { ExecutionResourceManager, type ResourceEvent } from '../../core'
import type { McpConnection } from './mcp-connection'
import { McpProvider } from './mcp-provider'

const everything = resolve(__dirname, '../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js')

/** A small real MCP server over Streamable HTTP that requires a bearer token. */
async function startHttpServer(token: string): Promise<{ server: Server; url: string; seenAuth: string[] }> {
  const seenAuth: string[] = []
  const server = createServer(async (request, response) => {
    seenAuth.push(String(request.headers.authorization))
    if (request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401).end()
      return
    }
    const mcp = new McpServer({ name: 'test-upstream', version: '1.0.0' })
    mcp.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }]
    }))
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    response.on('close', () => void transport.close())
    await mcp.connect(transport)
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => void transport.handleRequest(request, response, body ? JSON.parse(body) : undefined))
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`, seenAuth }
}

describe('mcp provider', () => {
  const manager = new ExecutionResourceManager().registerProvider(new McpProvider())
  const events: ResourceEvent[] = []
  manager.events.on('*', (event) => events.push(event))
  let http: Awaited<ReturnType<typeof startHttpServer>>
  const token = 'upstream-secret-token-9f3a'

  beforeAll(async () => {
    http = await startHttpServer(token)
  })
  afterAll(async () => {
    await manager.releaseAll()
    http.server.close()
  })

  it('connects to @modelcontextprotocol/server-everything over stdio, lists tools, calls one; release leaves no child process', async () => {
    const handle = await manager.ensure({
      kind: 'mcp',
      config: { transport: 'stdio', command: 'node', args: [everything, 'stdio'], env: { EVERYTHING_SECRET: 'env-secret-value-77' } }
    })
    const connection = handle.resource as McpConnection
    const tools = await connection.listTools()
    expect(tools.map((t) => t.name)).toContain('echo')
    const result = await connection.callTool('echo', { message: 'hello upstream' })
    expect(JSON.stringify(result.content)).toContain('hello upstream')
    const pid = connection.pid!
    expect(isAlive(pid)).toBe(true)
    expect(await new McpProvider().healthCheck(handle)).toBe('ready')
    await manager.release(handle)
    await expect.poll(() => isAlive(pid), { timeout: 5000 }).toBe(false)
  })

  it('connects to an HTTP MCP server the test starts, with headers, lists and calls tools', async () => {
    const handle = await manager.ensure({ kind: 'mcp', config: { transport: 'http', url: http.url, headers: { Authorization: `Bearer ${token}` } } })
    const connection = handle.resource as McpConnection
    expect((await connection.listTools()).map((t) => t.name)).toEqual(['add'])
    expect((await connection.callTool('add', { a: 2, b: 40 })).content).toEqual([{ type: 'text', text: '42' }])
    expect(connection.serverInfo).toMatchObject({ name: 'test-upstream' })
    await manager.release(handle)
  })

  it('fails to connect without the right header, and says so', async () => {
    await expect(manager.ensure({ kind: 'mcp', config: { transport: 'http', url: http.url, headers: { Authorization: 'Bearer wrong' } } })).rejects.toThrow(
      /could not connect to the upstream MCP server/
    )
  })

  it('never puts headers or env into events', () => {
    const text = JSON.stringify(events)
    expect(events.length).toBeGreaterThan(5)
    expect(text).not.toContain(token)
    expect(text).not.toContain('env-secret-value-77')
  })

  it('a missing upstream command makes the probe unavailable with the reason and the fix', async () => {
    await expect(manager.ensure({ kind: 'mcp', config: { transport: 'stdio', command: 'no-such-mcp-server' } })).rejects.toThrow(
      /no-such-mcp-server was not found; install it or give its absolute path/
    )
  })

  it('refuses bad config with the field named, and remote servers without network', async () => {
    await expect(manager.ensure({ kind: 'mcp', config: { transport: 'stdio', command: 'node', env: { 'BAD-NAME': 'x' } } })).rejects.toThrow(/invalid mcp config: env/)
    await expect(manager.ensure({ kind: 'mcp', config: { transport: 'http', url: 'ftp://example.com' } })).rejects.toThrow(/invalid mcp config: url/)
    await expect(manager.ensure({ kind: 'mcp', config: { transport: 'http', url: 'https://mcp.example.com/mcp' } })).rejects.toThrow(/outside the network policy/)
  })
})
