import { randomUUID } from 'node:crypto'
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { homedir } from 'node:os'
import { join, relative, resolve, sep } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listMcpTools, type UpstreamToolData } from '../../src/main/actions/mcp_tools'
import { sandboxIdentity, type ActionResult } from '../../src/main/core'
import { createHost, type Host } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { isAlive } from '../support/processes'
import { makeTempDir } from '../support/temp-home'

// Issue 11, "Upstream MCP servers run sandboxed", through the path an agent's call takes: the real
// host, an agent whose profile attaches stdio servers, `host.agents.sessions.execute` through the
// dispatcher and the policy, the real mcp provider starting each server in real bubblewrap.
// `everything` is @modelcontextprotocol/server-everything; `probe` (test/fixtures/mcp-probe-server.mjs)
// tries to read, write and connect where it is told and reports what happened.

/** Set for the host before anything starts: a server must never see it. */
const hostCanary = `host-canary-${randomUUID()}`
process.env.AIRLOCK_TEST_HOST_CANARY = hostCanary

const nodeModules = resolve(__dirname, '../../node_modules')
const everything = join(nodeModules, '@modelcontextprotocol/server-everything/dist/index.js')
const fixtures = resolve(__dirname, '../fixtures')
const probeServer = join(fixtures, 'mcp-probe-server.mjs')
const serverSecret = `server-secret-${randomUUID()}`

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

type Attempt = { ok: boolean; code?: string; value?: unknown }

describe.skipIf(skip !== undefined)(`stdio upstream MCP servers run inside bubblewrap${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let sessionId: string
  let workspace: string
  let otherWorkspace: string
  let listener: Server
  let port: number
  const call = (tool: string, input: unknown = {}) => host.agents.sessions.execute({ sessionId, tool, input })
  const text = (result: ActionResult) => ((result.data as UpstreamToolData).content[0] as { text: string }).text
  const probe = async (tool: string, input: Record<string, unknown>, server = 'probe'): Promise<Attempt> => {
    const result = await call(`${server}__${tool}`, input)
    expect(result).toMatchObject({ ok: true, status: 'success' })
    return (result.data as UpstreamToolData).structuredContent as Attempt
  }

  beforeAll(async () => {
    dir = makeTempDir('airlock-mcp-sandboxed-', { outsideTmp: true })
    listener = createServer((socket) => {
      socket.on('error', () => undefined)
      socket.end('hello from the host\n')
    })
    await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done))
    port = (listener.address() as { port: number }).port
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    const created = host.agents.service.create('coder', {
      profile: {
        capabilities: ['mcp'],
        mcpServers: [
          { name: 'everything', command: ['/usr/bin/node', everything, 'stdio'], readOnlyPaths: [nodeModules], env: { EVERYTHING_TOKEN: serverSecret } },
          { name: 'probe', command: ['/usr/bin/node', probeServer], readOnlyPaths: [fixtures] },
          { name: 'netprobe', command: ['/usr/bin/node', probeServer], readOnlyPaths: [fixtures], network: 'full' }
        ]
      }
    })
    workspace = created.workspace
    otherWorkspace = host.agents.service.create('other').workspace
    writeFileSync(join(otherWorkspace, 'scratch', 'notes.txt'), 'the other agent’s notes')
    writeFileSync(join(workspace, 'scratch', 'mine.txt'), 'outside the server scratch')
    sessionId = host.agents.sessions.start('coder', 'test').sessionId
  }, 60_000)

  afterAll(async () => {
    await host?.dispose()
    listener?.close()
    dir?.remove()
    delete process.env.AIRLOCK_TEST_HOST_CANARY
  })

  it('proxies the tools of @modelcontextprotocol/server-everything as everything__<tool>, run in bubblewrap (history says so)', async () => {
    const agent = host.agents.sessions.agentOf(sessionId)!
    const { tools, failures } = await listMcpTools({ agent, sessions: host.agents.dispatcher.sessions })
    expect(failures).toEqual([])
    const names = tools.filter((tool) => tool.server === 'everything').map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-env', 'everything__get-sum']))
    const echo = await call('everything__echo', { message: 'hello from the sandbox' })
    const isolation = {
      processContained: true,
      hostFilesystemRestricted: true,
      privilegeEscalationBlocked: true,
      syscallsRestricted: true,
      mechanism: 'bubblewrap',
      networkMode: 'none'
    }
    expect(echo).toMatchObject({
      ok: true,
      status: 'success',
      meta: { mcp: { server: 'everything', tool: 'echo', transport: 'stdio', sandboxed: true }, provider: { providerId: 'mcp', sandboxed: true, isolation } }
    })
    expect(text(echo)).toBe('Echo: hello from the sandbox')
    expect(host.agents.history.detail(echo.meta.callId as string).provider).toEqual({ providerId: 'mcp', sandboxed: true, isolation })
    const [handle] = host.resources.list({ scope: 'session', ownerId: sessionId }).filter((h) => h.resourceKey === 'mcp:everything')
    expect(handle?.meta).toMatchObject({
      sandboxed: true,
      isolation: {
        processContained: true,
        hostFilesystemRestricted: true,
        privilegeEscalationBlocked: true,
        syscallsRestricted: true,
        mechanism: 'bubblewrap',
        networkMode: 'none'
      }
    })
  })

  it("get-env shows none of the host's environment: only PATH, HOME (its state folder), LANG, TMPDIR, the shell's PWD and the server's own env", async () => {
    expect(process.env.AIRLOCK_TEST_HOST_CANARY).toBe(hostCanary)
    const result = await call('everything__get-env')
    expect(result.status).toBe('success')
    expect(text(result)).not.toContain(hostCanary)
    const env = JSON.parse(text(result)) as Record<string, string>
    expect(Object.keys(env).sort()).toEqual(['EVERYTHING_TOKEN', 'HOME', 'LANG', 'PATH', 'PWD', 'TMPDIR'])
    const scratch = join(realpathSync(dir.path), 'mcp-state', 'coder', 'everything')
    // PWD is set by the sandbox's own sh (the launch trampoline) from the working directory.
    expect(env).toMatchObject({ HOME: scratch, PWD: scratch, PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', TMPDIR: '/tmp' })
    // The server's own secret reaches it, and is redacted from what the agent gets.
    expect(env.EVERYTHING_TOKEN).toBe('[redacted]')
  })

  it('runs as the sandbox identity (never root), in its own pid namespace, in its state folder out of the workspace', async () => {
    const who = (await probe('whoami', {})) as unknown as { uid: number; gid: number; pid: number; cwd: string; env: Record<string, string> }
    expect(who.uid).toBe(sandboxIdentity().uid)
    if (process.getuid?.() === 0) expect(who.uid).not.toBe(0)
    expect(who.pid).toBeLessThan(10)
    expect(who.cwd).toBe(join(realpathSync(dir.path), 'mcp-state', 'coder', 'probe'))
    expect(JSON.stringify(who.env)).not.toContain(hostCanary)
  })

  it("cannot read the host's home, the Airlock home, another agent's workspace or its own agent's workspace", async () => {
    // Inside, a host home is absent, or (when the Airlock home lies in it, as for a non-root user)
    // only the empty folders bwrap made on the way to the scratch; nothing the user keeps there.
    for (const home of new Set([homedir(), process.env.HOME ?? homedir()])) {
      const seen = await probe('list', { path: home })
      const onTheWay = relative(home, dir.path).startsWith('..') ? [] : [relative(home, dir.path).split(sep)[0]]
      expect(seen.ok ? seen.value : seen.code).toEqual(onTheWay.length ? onTheWay : 'ENOENT')
      for (const name of readdirSync(home)
        .filter((entry) => !onTheWay.includes(entry))
        .slice(0, 8)) {
        expect(await probe('list', { path: join(home, name) })).toEqual({ ok: false, code: 'ENOENT' })
      }
    }
    expect(await probe('read', { path: join(dir.path, 'airlock.db') })).toEqual({ ok: false, code: 'ENOENT' })
    expect(await probe('list', { path: dir.path })).toMatchObject({ ok: true, value: ['mcp-state'] })
    expect(await probe('read', { path: join(otherWorkspace, 'scratch', 'notes.txt') })).toEqual({ ok: false, code: 'ENOENT' })
    expect(await probe('read', { path: join(workspace, 'scratch', 'mine.txt') })).toEqual({ ok: false, code: 'ENOENT' })
    expect(await probe('list', { path: workspace })).toEqual({ ok: false, code: 'ENOENT' })
    expect(await probe('list', { path: join(realpathSync(dir.path), 'mcp-state', 'coder') })).toEqual({ ok: true, value: ['probe'] })
    expect(await probe('read', { path: '/etc/shadow' })).toEqual({ ok: false, code: 'ENOENT' })
    // What the operator listed is readable; nothing else of the repository is there.
    expect(await probe('read', { path: probeServer })).toMatchObject({ ok: true })
    expect(await probe('read', { path: join(fixtures, '..', '..', 'package.json') })).toEqual({ ok: false, code: 'ENOENT' })
  })

  it('writes only its state folder: the system, the read-only paths, the agent workspace and / refuse, and its /tmp is its own', async () => {
    const scratch = join(realpathSync(dir.path), 'mcp-state', 'coder', 'probe')
    expect(await probe('write', { path: join(scratch, 'kept.txt'), content: 'from the server' })).toEqual({ ok: true })
    expect(readFileSync(join(scratch, 'kept.txt'), 'utf8')).toBe('from the server')
    expect(lstatSync(join(scratch, 'kept.txt')).uid).toBe(sandboxIdentity().uid)
    for (const path of [
      '/usr/airlock-probe',
      join(fixtures, 'airlock-probe'),
      join(workspace, 'scratch', 'airlock-probe'),
      join(dir.path, 'airlock-probe'),
      '/airlock-probe',
      join(homedir(), 'airlock-probe')
    ]) {
      const attempt = await probe('write', { path })
      expect(attempt.ok, path).toBe(false)
      expect(['EROFS', 'ENOENT', 'EACCES'], `${path}: ${attempt.code}`).toContain(attempt.code)
      expect(existsSync(path), path).toBe(false)
    }
    const marker = `/tmp/airlock-probe-${randomUUID()}`
    expect(await probe('write', { path: marker })).toEqual({ ok: true })
    expect(existsSync(marker)).toBe(false)
  })

  it('has no network unless its server policy says full: the host loopback is unreachable, then reachable', async () => {
    const offline = await probe('connect', { host: '127.0.0.1', port })
    expect(offline.ok).toBe(false)
    expect(['ECONNREFUSED', 'ENETUNREACH']).toContain(offline.code)
    expect(await probe('connect', { host: '127.0.0.1', port }, 'netprobe')).toEqual({ ok: true })
    const [handle] = host.resources.list({ scope: 'session', ownerId: sessionId }).filter((h) => h.resourceKey === 'mcp:netprobe')
    expect(handle?.meta).toMatchObject({ sandboxed: true, isolation: { networkMode: 'full' } })
  })

  it('ending the session ends every server sandbox', async () => {
    const pids = host.resources
      .list({ scope: 'session', ownerId: sessionId })
      .filter((h) => h.kind === 'mcp')
      .map((h) => (h.resource as { pid?: number }).pid!)
    expect(pids.length).toBe(3)
    for (const pid of pids) expect(isAlive(pid)).toBe(true)
    await host.agents.sessions.end(sessionId)
    for (const pid of pids) await expect.poll(() => isAlive(pid), { timeout: 5000 }).toBe(false)
  })
})
