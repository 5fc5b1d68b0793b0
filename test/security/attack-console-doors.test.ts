// The console's doors (issue 24, critical): where DISPLAY was set, `airlock serve` ran
// `xdg-open http://127.0.0.1:<port>/?token=<token>`; the browser kept that URL on its command line,
// readable by every local user in /proc; the token was not one-time and the cookie's value was the
// token itself. As uid 65534 an attacker read the URL, opened the console's WebSocket, created an
// agent with an `unsafe` stdio MCP server and ran it as root. Each door is attacked here on a real
// `serve` (HTTP + WebSocket) with a real opener program on PATH.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRequestGuard, launchCodeLifetimeMs } from '../../src/main/app/request-guard'
import type { RunningConsole } from '../../src/main/app/serve'
import { consoleGet, openConsoleSocket, type ConsoleSocket } from '../support/console-socket'
import { serveWithOpener } from '../support/serve-with-opener'
import { makeTempDir } from '../support/temp-home'

let dir: ReturnType<typeof makeTempDir>
let running: RunningConsole
let opened: string[]

const get = (path: string, headers: Record<string, string> = {}) => consoleGet(running.console.port, path, headers)

const cookieOf = (response: { headers: Record<string, unknown> }) => String(response.headers['set-cookie']).split(';')[0]!

const connect = (path: string, headers: Record<string, string> = {}) => openConsoleSocket(`ws://127.0.0.1:${running.console.port}${path}`, headers)

beforeAll(async () => {
  dir = makeTempDir('airlock-console-doors-')
  // A desktop to open on, and an opener that records the command line it was given (what every
  // local user can read in /proc/<pid>/cmdline while it and the browser it starts run).
  const record = join(dir.path, 'opened.txt')
  running = await serveWithOpener(dir.path, `printf '%s\\n' "$@" >> '${record}'`)
  // The shell creates the file before printf writes to it: wait for a whole line, not the file.
  const recorded = () => (existsSync(record) ? readFileSync(record, 'utf8') : '')
  for (let waited = 0; !recorded().endsWith('\n') && waited < 10_000; waited += 50) await new Promise((done) => setTimeout(done, 50))
  opened = recorded().trim().split('\n').filter(Boolean)
}, 60_000)

afterAll(async () => {
  await running?.stop()
  dir?.remove()
})

describe('the browser the console opens', () => {
  /** The launch URL in the page the opener was given (what the operator's browser reads). */
  const launchPath = () => {
    const page = readFileSync(fileURLToPath(opened[0]!), 'utf8')
    const url = new URL(/url=([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, '&'))
    return `${url.pathname}${url.search}`
  }

  it('gets the path of a page only this user can read: no credential on its command line, neither the token nor a launch code', () => {
    expect(opened).toHaveLength(1)
    expect(opened[0]).toMatch(/^file:\/\/.*\/run\/console-launch-[0-9a-f]{24}\.html$/)
    expect(opened[0]).not.toContain(running.console.token)
    expect(opened[0]).not.toContain('launch=')
    const page = fileURLToPath(opened[0]!)
    expect(statSync(page).mode & 0o777).toBe(0o600)
    expect(statSync(dirname(page)).mode & 0o777).toBe(0o700)
    expect(launchPath()).toMatch(/^\/\?launch=[A-Za-z0-9_-]{32}$/)
  })

  it.runIf(process.getuid?.() === 0)('another local user who reads the command line cannot read the page (uid 65534)', () => {
    const read = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'cat', fileURLToPath(opened[0]!)], { encoding: 'utf8' })
    expect(read.status).not.toBe(0)
    expect(read.stderr).toMatch(/Permission denied/)
    expect(read.stdout).not.toContain('launch=')
  })

  it('the launch code in the page is good once: the browser gets a session; a second exchange gets 401', async () => {
    const path = launchPath()
    const first = await get(path)
    expect(first.status).toBe(303)
    expect(first.headers.location).toBe('/')
    expect((await get('/', { cookie: cookieOf(first) })).status).toBe(200)
    expect((await get(path)).status).toBe(401)
    await expect(connect(`/ws${path.slice(1)}`)).rejects.toThrow(/401/)
  })

  it('a launch code expires in seconds, used or not', () => {
    let now = 1_000_000
    const guard = createRequestGuard({ token: 'console-token', port: () => 7410, now: () => now })
    const at = (url: string) => ({ url, headers: { host: '127.0.0.1:7410' } }) as never
    const fresh = guard.issueLaunchCode()
    expect(guard.check(at(`/?launch=${fresh}`))).toEqual({ credential: 'launch' })
    const stale = guard.issueLaunchCode()
    now += launchCodeLifetimeMs
    expect(guard.check(at(`/?launch=${stale}`))).toMatchObject({ refusal: { status: 401 } })
    expect(launchCodeLifetimeMs).toBeLessThanOrEqual(30_000)
  })
})

describe('the session cookie', () => {
  it('is not the console token, and neither the token nor a forged or foreign session works as a cookie', async () => {
    const cookie = cookieOf(await get(`/?token=${running.console.token}`))
    expect(cookie).toMatch(/^airlock_session=/)
    expect(cookie).not.toContain(running.console.token)
    const [nonce] = cookie.slice('airlock_session='.length).split('.')
    const foreign = createRequestGuard({ token: 'another-console', port: () => running.console.port })
    const foreignCookie = foreign.sessionCookieHeader().split(';')[0]!
    for (const attempt of [
      `airlock_session=${running.console.token}`,
      `airlock_token=${running.console.token}`,
      `airlock_session=${nonce}.${'A'.repeat(43)}`,
      `airlock_session=${nonce}`,
      foreignCookie
    ]) {
      expect((await get('/', { cookie: attempt })).status, attempt).toBe(401)
      await expect(connect('/ws', { cookie: attempt }), attempt).rejects.toThrow(/401/)
    }
    const ws = await connect('/ws', { cookie })
    ws.close()
  })
})

describe('marking an MCP server unsafe from the web console', () => {
  const unsafeServer = { name: 'shell', command: ['/bin/sh', '-c', 'id > marker'], unsafe: true }
  let ws: ConsoleSocket

  beforeAll(async () => {
    ws = await connect('/ws', { cookie: cookieOf(await get(`/?token=${running.console.token}`)) })
  })
  afterAll(() => ws?.close())

  it('is refused on create, update, patch and role save, saying where to do it; nothing is stored', async () => {
    const created = await ws.call('airlock:agents:create', { agentId: 'intruder', profile: { capabilities: ['mcp'], mcpServers: [unsafeServer] } })
    expect(created).toMatchObject({ ok: false, error: { code: 'agent.unsafe_needs_confirmation' } })
    expect(!created.ok && created.error.message).toMatch(/shell.*without a sandbox.*web console cannot confirm.*desktop app.*airlock agent update/)
    expect(running.host.agents.service.list().map((agent) => agent.id)).not.toContain('intruder')

    expect(await ws.call('airlock:agents:create', { agentId: 'plain', profile: { capabilities: ['mcp'] } })).toMatchObject({ ok: true })
    for (const change of [{ profile: { capabilities: ['mcp'], mcpServers: [unsafeServer] } }, { patch: { mcpServers: [unsafeServer] } }]) {
      expect(await ws.call('airlock:agents:update', { agentId: 'plain', ...change })).toMatchObject({
        ok: false,
        error: { code: 'agent.unsafe_needs_confirmation' }
      })
    }
    expect(running.host.agents.service.get('plain').profile.mcpServers ?? []).toEqual([])

    expect(await ws.call('airlock:agents:saveRole', { id: 'hosted', defaults: { allowUnsafeLocal: true, mcpServers: [unsafeServer] } })).toMatchObject({
      ok: false,
      error: { code: 'agent.unsafe_needs_confirmation' }
    })
    expect(running.host.agents.roles.list().map((role) => role.id)).not.toContain('hosted')
  })

  it('a server the operator marked unsafe elsewhere (the CLI) stays editable from the console as long as it is not changed; a changed command asks again', async () => {
    running.host.agents.service.create('ops', { profile: { capabilities: ['mcp'], mcpServers: [{ name: 'tool', command: ['/usr/bin/true'], unsafe: true }] } })
    const stored = running.host.agents.service.get('ops').profile
    expect(await ws.call('airlock:agents:update', { agentId: 'ops', name: 'Ops agent', profile: stored })).toMatchObject({ ok: true })
    const swapped = { ...stored, mcpServers: [{ name: 'tool', command: ['/bin/sh', '-c', 'id > marker'], unsafe: true }] }
    expect(await ws.call('airlock:agents:update', { agentId: 'ops', profile: swapped })).toMatchObject({
      ok: false,
      error: { code: 'agent.unsafe_needs_confirmation' }
    })
    expect(running.host.agents.service.get('ops').profile.mcpServers).toEqual([{ name: 'tool', command: ['/usr/bin/true'], unsafe: true }])
    // Sandboxed servers need no confirmation.
    expect(await ws.call('airlock:agents:update', { agentId: 'ops', patch: { mcpServers: [{ name: 'tool', command: ['/usr/bin/true'] }] } })).toMatchObject({
      ok: true
    })
  })

  it("the red team's other routes to the host are refused the same way: allowUnsafeLocal (trusted_local), an unsafe server's env, docker extra arguments", async () => {
    const trusted = { providers: ['trusted_local'], allowUnsafeLocal: true, isolation: 'none' }
    expect(await ws.call('airlock:agents:create', { agentId: 'local', profile: trusted })).toMatchObject({
      ok: false,
      error: { code: 'agent.unsafe_needs_confirmation' }
    })
    expect(running.host.agents.service.list().map((agent) => agent.id)).not.toContain('local')
    expect(await ws.call('airlock:agents:update', { agentId: 'plain', patch: trusted })).toMatchObject({
      ok: false,
      error: { code: 'agent.unsafe_needs_confirmation' }
    })
    expect(await ws.call('airlock:agents:saveRole', { id: 'locals', defaults: { allowUnsafeLocal: true } })).toMatchObject({
      ok: false,
      error: { code: 'agent.unsafe_needs_confirmation' }
    })

    running.host.agents.service.create('envy', {
      profile: { capabilities: ['mcp'], mcpServers: [{ name: 'tool', command: ['/usr/bin/true'], unsafe: true, env: { TOKEN: 'secret-value-1' } }] }
    })
    const stored = running.host.agents.service.get('envy').profile
    // Sent back as shown (the secret redacted): no change, no question.
    expect(await ws.call('airlock:agents:update', { agentId: 'envy', name: 'Envy', profile: stored })).toMatchObject({ ok: true })
    for (const env of [{ TOKEN: '<redacted>', LD_PRELOAD: '/tmp/evil.so' }, { TOKEN: 'another' }, { NODE_OPTIONS: '--require /tmp/x.js' }]) {
      const changed = { ...stored, mcpServers: [{ name: 'tool', command: ['/usr/bin/true'], unsafe: true, env }] }
      expect(await ws.call('airlock:agents:update', { agentId: 'envy', profile: changed }), JSON.stringify(env)).toMatchObject({
        ok: false,
        error: { code: 'agent.unsafe_needs_confirmation' }
      })
    }

    for (const extraArgs of [['--privileged'], ['-v', '/:/host'], ['--mount', 'type=bind,source=/var/run/docker.sock,target=/s']]) {
      expect(
        await ws.call('airlock:settings:set', { key: 'code_execution.providers', value: ['bubblewrap', { providerId: 'docker', config: { extraArgs } }] })
      ).toMatchObject({
        ok: false,
        error: { code: 'agent.unsafe_needs_confirmation' }
      })
    }
    // Reordering (no extra arguments) needs nobody's confirmation.
    expect(await ws.call('airlock:settings:set', { key: 'code_execution.providers', value: ['docker', 'bubblewrap'] })).toMatchObject({ ok: true })
  })
})
