import { createServer, type Server } from 'node:http'
import { bubblewrapIsolation } from '../bubblewrap/sandbox-isolation'
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { skipReasonFor } from '../../../../test/support/components'
import { isAlive, survivorsOf } from '../../../../test/support/processes'
import { makeTempDir } from '../../../../test/support/temp-home'
import { claimWorkspace, ExecutionResourceManager, sandboxIdentity, type ResourceEvent } from '../../core'
import { checkBubblewrapHost } from '../bubblewrap/bubblewrap-probe'
import type { McpConnection } from './mcp-connection'
import { McpProvider } from './mcp-provider'

const nodeModules = resolve(__dirname, '../../../../node_modules')
const everything = join(nodeModules, '@modelcontextprotocol/server-everything/dist/index.js')
const bwrap = await checkBubblewrapHost()
const skipSandbox = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

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
  const home = makeTempDir('airlock-mcp-provider-', { outsideTmp: true })
  const manager = new ExecutionResourceManager().registerProvider(new McpProvider({ home: home.path }))
  const events: ResourceEvent[] = []
  manager.events.on('*', (event) => events.push(event))
  let http: Awaited<ReturnType<typeof startHttpServer>>
  const token = 'upstream-secret-token-9f3a'
  const workspace = join(home.path, 'workspaces', 'agent-1')
  const stateDir = join(home.path, 'mcp-state', 'agent-1', 'everything')
  const sandboxed = (extra: Record<string, unknown> = {}) => ({
    transport: 'stdio',
    command: '/usr/bin/node',
    args: [everything, 'stdio'],
    stateDir,
    readOnlyPaths: [nodeModules],
    env: { EVERYTHING_SECRET: 'env-secret-value-77' },
    ...extra
  })

  beforeAll(async () => {
    http = await startHttpServer(token)
    claimWorkspace(workspace)
  })
  afterAll(async () => {
    await manager.releaseAll()
    http.server.close()
    home.remove()
  })

  it.skipIf(skipSandbox !== undefined)(
    `runs @modelcontextprotocol/server-everything over stdio in bubblewrap: lists tools, calls one; meta says sandboxed; release leaves no process${skipSandbox ? ` (skipped: ${skipSandbox})` : ''}`,
    async () => {
      const handle = await manager.ensure({ kind: 'mcp', config: sandboxed() })
      expect(handle.meta).toMatchObject({
        transport: 'stdio',
        sandboxed: true,
        // The bubblewrap sandbox's own facts (pinned field by field in bubblewrap-provider.test.ts).
        isolation: bubblewrapIsolation('none'),
        stateDir
      })
      const connection = handle.resource as McpConnection
      const tools = await connection.listTools()
      expect(tools.map((t) => t.name)).toContain('echo')
      const result = await connection.callTool('echo', { message: 'hello upstream' })
      expect(JSON.stringify(result.content)).toContain('hello upstream')
      // The state folder was made for the sandbox identity, out of the workspace; the server's HOME and cwd are there.
      expect(existsSync(stateDir)).toBe(true)
      const listed = (await connection.callTool('get-env', {})).content as { text: string }[]
      const env = JSON.parse(listed[0]!.text) as Record<string, string>
      expect(env).toMatchObject({ HOME: stateDir, PATH: '/usr/local/bin:/usr/bin:/bin', EVERYTHING_SECRET: 'env-secret-value-77' })
      const pid = connection.pid!
      expect(isAlive(pid)).toBe(true)
      expect(await new McpProvider().healthCheck(handle)).toBe('ready')
      await manager.release(handle)
      await expect.poll(() => isAlive(pid), { timeout: 5000 }).toBe(false)
    }
  )

  it('an unsafe stdio server runs on the host as the sandbox uid (never root), HOME and cwd its state folder, and probe and meta say it is unsandboxed', async () => {
    const unsafeState = join(home.path, 'mcp-state', 'agent-1', 'hosted')
    const handle = await manager.ensure({
      kind: 'mcp',
      config: { transport: 'stdio', command: 'node', args: [everything, 'stdio'], unsafe: true, stateDir: unsafeState, env: { MARK: 'x' } }
    })
    const identity = sandboxIdentity()
    expect(handle.meta).toMatchObject({
      transport: 'stdio',
      sandboxed: false,
      unsafe: true,
      uid: identity.uid,
      stateDir: unsafeState,
      isolation: { processContained: false, mechanism: 'host (unsafe)' }
    })
    const connection = handle.resource as McpConnection
    expect((await connection.listTools()).map((t) => t.name)).toContain('echo')
    const pid = connection.pid!
    // The kernel's word on who it runs as, not the meta's.
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    expect(/^Uid:\s+(\d+)/m.exec(status)![1]).toBe(String(identity.uid))
    expect(/^Gid:\s+(\d+)/m.exec(status)![1]).toBe(String(identity.gid))
    if (identity.dedicated) expect(/^Groups:[ \t]*(.*)$/m.exec(status)![1]!.trim()).toBe('')
    const env = JSON.parse(((await connection.callTool('get-env', {})).content as { text: string }[])[0]!.text) as Record<string, string>
    expect(env).toMatchObject({ HOME: unsafeState, MARK: 'x' })
    expect(readlinkSync(`/proc/${pid}/cwd`)).toBe(unsafeState)
    await manager.release(handle)
    await expect.poll(() => isAlive(pid), { timeout: 5000 }).toBe(false)
  })

  it('fails closed: without bubblewrap, or without the Airlock home, a stdio server not marked unsafe is refused with the reason', async () => {
    const noBwrap = new ExecutionResourceManager().registerProvider(new McpProvider({ home: home.path, bwrapPath: '/nonexistent/bwrap' }))
    await expect(noBwrap.ensure({ kind: 'mcp', config: sandboxed() })).rejects.toThrow(
      /runs only inside a sandbox .*bubblewrap cannot run here: bwrap not found at \/nonexistent\/bwrap/
    )
    const noHome = new ExecutionResourceManager().registerProvider(new McpProvider())
    await expect(noHome.ensure({ kind: 'mcp', config: sandboxed() })).rejects.toThrow(/built without the Airlock home/)
  })

  it.skipIf(skipSandbox !== undefined)(
    'refuses a state folder anywhere but <home>/mcp-state/<agent>/<server> (the workspace above all), and a program the sandbox cannot see',
    async () => {
      const outside = join(home.path, 'elsewhere')
      mkdirSync(outside, { recursive: true })
      await expect(manager.ensure({ kind: 'mcp', config: sandboxed({ stateDir: outside }) })).rejects.toThrow(/is not <home>\/mcp-state\/<agent>\/<server>/)
      await expect(manager.ensure({ kind: 'mcp', config: sandboxed({ stateDir: join(workspace, 'integrations', 'everything') }) })).rejects.toThrow(
        /is not <home>\/mcp-state/
      )
      await expect(
        manager.ensure({ kind: 'mcp', config: sandboxed({ stateDir: join(home.path, 'mcp-state', 'agent-1', '..', 'agent-2', 'x', 'y') }) })
      ).rejects.toThrow(/is not <home>\/mcp-state/)
      // A program outside the system directories and the read-only paths is not there inside.
      await expect(
        manager.ensure({
          kind: 'mcp',
          config: sandboxed({ command: process.execPath === '/usr/bin/node' ? join(nodeModules, '.bin', 'vitest') : process.execPath, readOnlyPaths: [] })
        })
      ).rejects.toThrow(/is not visible inside the sandbox: add its directory to the server's readOnlyPaths/)
    }
  )

  it.skipIf(skipSandbox !== undefined)('a server that cannot start says why (its stderr), without its secrets; nothing is left running', async () => {
    // The script is not visible inside: node itself says it cannot find it.
    const failed = manager.ensure({
      kind: 'mcp',
      config: sandboxed({ readOnlyPaths: [], env: { EVERYTHING_SECRET: 'env-secret-value-77' }, args: [everything, 'env-secret-value-77'] })
    })
    await expect(failed).rejects.toThrow(/could not connect to the upstream MCP server: .*the server said: .*Cannot find module '.*index\.js'/)
    await expect(failed).rejects.not.toThrow(/env-secret-value-77/)
    expect(manager.list().filter((handle) => handle.kind === 'mcp')).toEqual([])
    expect(await survivorsOf('env-secret-value-77')).toEqual([])
  })

  it.skipIf(skipSandbox !== undefined)('the state folder belongs to the sandbox identity, and one made by hand for someone else is refused', async () => {
    const identity = sandboxIdentity()
    expect([lstatSync(stateDir).uid, lstatSync(stateDir).gid]).toEqual([identity.uid, identity.gid])
    if (identity.dedicated) {
      const foreign = join(home.path, 'mcp-state', 'agent-1', 'rootowned')
      mkdirSync(foreign, { mode: 0o755 })
      await expect(manager.ensure({ kind: 'mcp', config: sandboxed({ stateDir: foreign }) })).rejects.toThrow(
        /belongs to uid 0, and sandboxed code runs as uid 60777/
      )
    }
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
    await expect(manager.ensure({ kind: 'mcp', config: { transport: 'stdio', command: 'no-such-mcp-server', unsafe: true, stateDir } })).rejects.toThrow(
      /no-such-mcp-server was not found; install it or give its absolute path/
    )
    if (!skipSandbox)
      await expect(manager.ensure({ kind: 'mcp', config: sandboxed({ command: 'no-such-mcp-server' }) })).rejects.toThrow(/no-such-mcp-server was not found/)
  })

  it('refuses bad config with the field named, and remote servers without network', async () => {
    await expect(
      manager.ensure({ kind: 'mcp', config: { transport: 'stdio', command: 'node', env: { 'BAD-NAME': 'x' }, unsafe: true, stateDir } })
    ).rejects.toThrow(/invalid mcp config: env/)
    await expect(manager.ensure({ kind: 'mcp', config: { transport: 'stdio', command: 'node' } })).rejects.toThrow(/invalid mcp config: stateDir/)
    await expect(manager.ensure({ kind: 'mcp', config: sandboxed({ cwd: '/' }) })).rejects.toThrow(/invalid mcp config: .*cwd/)
    await expect(
      manager.ensure({ kind: 'mcp', config: { transport: 'stdio', command: 'node', unsafe: true, stateDir, readOnlyPaths: ['/opt'] } })
    ).rejects.toThrow(/invalid mcp config: readOnlyPaths does not apply/)
    await expect(manager.ensure({ kind: 'mcp', config: { transport: 'http', url: 'ftp://example.com' } })).rejects.toThrow(/invalid mcp config: url/)
    await expect(manager.ensure({ kind: 'mcp', config: { transport: 'http', url: 'https://mcp.example.com/mcp' } })).rejects.toThrow(
      /outside the network policy/
    )
  })
})
