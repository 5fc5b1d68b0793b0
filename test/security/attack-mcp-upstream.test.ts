// Attacks on the sandbox of upstream stdio MCP servers (issue 11), through the path an agent's call
// takes (real host, `host.agents.sessions.execute`, real mcp provider, real bubblewrap), as root
// the way CI runs it. Each case is data: the server config, what an attacker (the agent's own
// sandboxes can write its workspace, `integrations/` included; a server's state lies outside it) does first, the exact outcome, and
// what on the host must be unchanged. The server is test/fixtures/mcp-probe-server.mjs.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { McpServerConfig } from '@shared/agents'
import type { UpstreamToolData } from '../../src/main/actions/mcp_tools'
import type { ActionResult } from '../../src/main/core'
import { createHost, type Host } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { isAlive } from '../support/processes'
import { makeTempDir } from '../support/temp-home'

const fixtures = resolve(__dirname, '..', 'fixtures')
const probeServer = join(fixtures, 'mcp-probe-server.mjs')
const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

/** The stage: the Airlock home, and beside it (outside) a directory an attack must not reach. */
type Context = {
  home: string
  outside: string
  workspace: string
  agentId: string
  host: Host
  sessionId: string
  call(tool: string, input?: unknown): Promise<ActionResult>
}

type Case = {
  id: string
  attack: string
  /** The server as the operator configured it (name `probe`); the probe program unless `command` says otherwise. */
  server: (ctx: Context) => Partial<McpServerConfig>
  /** What the attacker does before the server starts. */
  before?: (ctx: Context) => void
  run: (ctx: Context) => Promise<void>
  hostUnchanged?: (ctx: Context) => void
}

const structured = (result: ActionResult) => (result.data as UpstreamToolData).structuredContent as Record<string, unknown>

/** The call is refused before any server runs: blocked by the sandbox rule, with a reason matching `why`. */
const refused = (why: RegExp) => async (ctx: Context) => {
  const result = await ctx.call('probe__whoami')
  expect(result).toMatchObject({ ok: false, status: 'blocked', error: { code: 'policy.blocked' }, meta: { policy: { rule: 'mcp.sandbox_refused' } } })
  expect(result.error!.message).toMatch(why)
  expect(ctx.host.resources.list({ scope: 'session', ownerId: ctx.sessionId }).filter((h) => h.kind === 'mcp')).toEqual([])
}

const outsideUntouched = (ctx: Context) => expect(readdirSync(ctx.outside).sort()).toEqual(['secret.txt'])

export const cases: Case[] = [
  {
    id: 'integrations-symlink',
    attack: "the agent replaces its workspace's integrations/ with a symlink to a host directory before the server starts",
    server: () => ({}),
    before: (ctx) => {
      rmSync(join(ctx.workspace, 'integrations'), { recursive: true })
      symlinkSync(ctx.outside, join(ctx.workspace, 'integrations'))
    },
    // The server's state is not in the workspace: the link leads nowhere the server goes.
    run: async (ctx) => {
      const who = structured(await ctx.call('probe__whoami')) as { cwd: string }
      expect(who.cwd).toBe(join(realpathSync(ctx.home), 'mcp-state', ctx.agentId, 'probe'))
      expect(structured(await ctx.call('probe__list', { path: ctx.workspace }))).toEqual({ ok: false, code: 'ENOENT' })
    },
    hostUnchanged: outsideUntouched
  },
  {
    id: 'state-folder-symlink',
    attack: "someone with the host's uid plants the server's state folder (mcp-state/<agent>/probe) as a symlink to a host directory",
    server: () => ({}),
    before: (ctx) => {
      mkdirSync(join(ctx.home, 'mcp-state', ctx.agentId), { recursive: true })
      symlinkSync(ctx.outside, join(ctx.home, 'mcp-state', ctx.agentId, 'probe'))
    },
    run: refused(/probe is a symbolic link/),
    hostUnchanged: outsideUntouched
  },
  {
    id: 'state-swapped-after-start',
    attack: 'once the server runs, its state folder is renamed away and a symlink to a host directory put in its place',
    server: () => ({}),
    run: async (ctx) => {
      expect((await ctx.call('probe__whoami')).status).toBe('success')
      const state = join(realpathSync(ctx.home), 'mcp-state', ctx.agentId, 'probe')
      renameSync(state, `${state}-moved`)
      symlinkSync(ctx.outside, state)
      // The sandbox holds the directory it was bound from, not the path: the write lands there.
      expect(structured(await ctx.call('probe__write', { path: join(state, 'after-swap.txt') }))).toEqual({ ok: true })
      expect(readFileSync(join(`${state}-moved`, 'after-swap.txt'), 'utf8')).toBe('written by the probe server')
    },
    hostUnchanged: outsideUntouched
  },
  {
    id: 'read-only-airlock-home',
    attack: 'readOnlyPaths names the Airlock home (the database, every workspace)',
    server: (ctx) => ({ readOnlyPaths: [fixtures, ctx.home] }),
    run: refused(/holds or lies inside the Airlock home/)
  },
  {
    id: 'read-only-other-workspace',
    attack: "readOnlyPaths names another agent's workspace inside the Airlock home",
    server: (ctx) => ({ readOnlyPaths: [fixtures, join(ctx.home, 'workspaces', 'victim')] }),
    run: refused(/holds or lies inside the Airlock home/)
  },
  {
    id: 'read-only-symlink-to-home',
    attack: 'readOnlyPaths names an innocent-looking symlink that leads to the Airlock home',
    server: (ctx) => ({ readOnlyPaths: [fixtures, join(ctx.outside, 'tools')] }),
    before: (ctx) => symlinkSync(ctx.home, join(ctx.outside, 'tools')),
    run: refused(/tools \(it leads to .*\) is refused: it holds or lies inside the Airlock home/)
  },
  {
    id: 'read-only-symlink-to-root',
    attack: 'readOnlyPaths names a symlink to / (the schema refuses "/" itself)',
    server: (ctx) => ({ readOnlyPaths: [fixtures, join(ctx.outside, 'everything')] }),
    before: (ctx) => symlinkSync('/', join(ctx.outside, 'everything')),
    run: refused(/is refused: it is the whole file system/)
  },
  {
    id: 'read-only-user-home',
    attack: "readOnlyPaths names the user's whole home directory",
    server: () => ({ readOnlyPaths: [fixtures, homedir()] }),
    run: refused(/is refused: it holds the whole home directory/)
  },
  {
    id: 'read-only-above-home',
    attack: 'readOnlyPaths names a directory above the Airlock home',
    server: (ctx) => ({ readOnlyPaths: [fixtures, resolve(ctx.home, '..')] }),
    run: refused(/is refused: it holds or lies inside the Airlock home/)
  },
  {
    id: 'read-only-proc',
    attack: "readOnlyPaths names the host's /proc (every process's environment and descriptors)",
    server: () => ({ readOnlyPaths: [fixtures, '/proc/1'] }),
    run: refused(/is refused: it is part of \/proc/)
  },
  {
    id: 'link-inside-read-only-path',
    attack: "a read-only path holds symlinks to another agent's workspace and to the Airlock database: followed inside the sandbox, they lead nowhere",
    server: (ctx) => ({ readOnlyPaths: [fixtures, join(ctx.outside, 'tool')] }),
    before: (ctx) => {
      mkdirSync(join(ctx.outside, 'tool'))
      symlinkSync(join(ctx.home, 'workspaces', 'victim', 'scratch'), join(ctx.outside, 'tool', 'victim'))
      symlinkSync(join(ctx.home, 'airlock.db'), join(ctx.outside, 'tool', 'db'))
      writeFileSync(join(ctx.home, 'workspaces', 'victim', 'scratch', 'notes.txt'), 'victim notes')
    },
    run: async (ctx) => {
      expect(existsSync(join(ctx.home, 'airlock.db'))).toBe(true)
      expect(structured(await ctx.call('probe__read', { path: join(ctx.outside, 'tool', 'victim', 'notes.txt') }))).toEqual({ ok: false, code: 'ENOENT' })
      expect(structured(await ctx.call('probe__read', { path: join(ctx.outside, 'tool', 'db') }))).toEqual({ ok: false, code: 'ENOENT' })
    }
  },
  {
    id: 'command-in-scratch',
    attack: 'the command is a program the agent can write (inside its workspace), so the agent would choose what holds the server secrets',
    server: (ctx) => ({ command: [join(ctx.workspace, 'scratch', 'server.sh')] }),
    before: (ctx) => {
      writeFileSync(join(ctx.workspace, 'scratch', 'server.sh'), '#!/bin/sh\nenv > /dev/stderr\n')
      chmodSync(join(ctx.workspace, 'scratch', 'server.sh'), 0o755)
    },
    run: refused(/server\.sh is not visible inside the sandbox/)
  },
  {
    id: 'env-path-override',
    attack: "the server's env sets PATH to a directory with a fake `node`: the command must still be the one resolved on the host",
    server: (ctx) => ({
      command: ['node', probeServer],
      readOnlyPaths: [fixtures, join(ctx.outside, 'bin')],
      env: { PATH: `${join(ctx.outside, 'bin')}:/usr/bin:/bin` }
    }),
    before: (ctx) => {
      mkdirSync(join(ctx.outside, 'bin'))
      writeFileSync(join(ctx.outside, 'bin', 'node'), '#!/bin/sh\necho not an MCP server\n')
      chmodSync(join(ctx.outside, 'bin', 'node'), 0o755)
    },
    run: async (ctx) => {
      const who = structured(await ctx.call('probe__whoami')) as { execPath: string; env: Record<string, string> }
      expect(who.execPath).toBe('/usr/bin/node')
      // The operator's PATH is applied, inside the sandbox only (env values are secrets: the agent sees them redacted).
      expect(who.env.PATH).toBe('[redacted]')
    }
  },
  {
    id: 'env-bash-env-launcher',
    attack: "the server's env sets BASH_ENV (bash runs it at start) and LD_PRELOAD: neither may reach the host-side launcher (bash, prlimit, bwrap)",
    server: (ctx) => ({ env: { BASH_ENV: join(ctx.outside, 'hook.sh'), LD_PRELOAD: join(ctx.outside, 'evil.so') } }),
    before: (ctx) => {
      chmodSync(ctx.outside, 0o777)
      writeFileSync(join(ctx.outside, 'hook.sh'), `touch ${join(ctx.outside, 'bash-env-ran')}\n`, { mode: 0o755 })
    },
    run: async (ctx) => {
      const who = structured(await ctx.call('probe__whoami')) as { env: Record<string, string> }
      // The operator's env reaches the server (redacted for the agent: env values are secrets).
      expect(who.env).toMatchObject({ BASH_ENV: '[redacted]', LD_PRELOAD: '[redacted]' })
      const [handle] = ctx.host.resources.list({ scope: 'session', ownerId: ctx.sessionId }).filter((h) => h.kind === 'mcp')
      // The launcher (now bwrap itself, on the host) started from an empty environment: only what its bash set itself.
      const environ = readFileSync(`/proc/${(handle!.resource as { pid: number }).pid}/environ`, 'utf8')
      for (const entry of environ.split('\0').filter(Boolean)) expect(['PWD=/', 'SHLVL=0', 'SHLVL=1']).toContain(entry)
      expect(existsSync(join(ctx.outside, 'bash-env-ran'))).toBe(false)
    }
  },
  {
    id: 'output-flood',
    attack: 'the server floods its stdout with 12 MiB that never ends a message, to exhaust the host',
    server: () => ({}),
    run: async (ctx) => {
      expect((await ctx.call('probe__whoami')).status).toBe('success')
      const [handle] = ctx.host.resources.list({ scope: 'session', ownerId: ctx.sessionId }).filter((h) => h.kind === 'mcp')
      const pid = (handle!.resource as { pid: number }).pid
      const flooded = await ctx.call('probe__flood', { bytes: 12 * 1024 * 1024 })
      expect(flooded).toMatchObject({ ok: false, status: 'error', error: { code: 'mcp.upstream_error', message: expect.stringMatching(/Connection closed/) } })
      // The host ended that server; the next call gets a fresh one.
      await expect.poll(() => isAlive(pid), { timeout: 5000 }).toBe(false)
      expect((await ctx.call('probe__whoami')).status).toBe('success')
    }
  },
  {
    id: 'inherited-descriptors',
    attack: 'a host descriptor (a directory, the database, a log) reaches the server and leads out of the sandbox',
    server: () => ({}),
    run: async (ctx) => {
      const fds = structured(await ctx.call('probe__fds')) as Record<string, string | null>
      expect(Object.keys(fds)).toEqual(expect.arrayContaining(['0', '1', '2']))
      // Only node's own pipes, sockets, event fds and the directory listing it has open right now.
      for (const [fd, target] of Object.entries(fds)) expect(target ?? '', `fd ${fd}`).toMatch(/^(pipe|socket|anon_inode):|^\/dev\/|^\/proc\/\d+\/fd$/)
    }
  }
]

describe.skipIf(skip !== undefined)(`attacks on sandboxed upstream MCP servers${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let home: string
  let outsideRoot: string

  beforeAll(async () => {
    dir = makeTempDir('airlock-attack-mcp-', { outsideTmp: true })
    home = join(dir.path, 'home')
    outsideRoot = join(dir.path, 'outside')
    mkdirSync(outsideRoot, { mode: 0o755 })
    host = createHost({ home, logError: () => undefined })
    await host.recovered
    host.agents.service.create('victim')
  }, 60_000)

  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  cases.forEach((attack, index) => {
    it(`${attack.id}: ${attack.attack}`, async () => {
      const outside = join(outsideRoot, attack.id)
      mkdirSync(outside)
      writeFileSync(join(outside, 'secret.txt'), 'host secret')
      const agentId = `case-${index}`
      // Where the agent service will make the workspace (the config may name paths in it).
      const partial: Context = {
        home,
        outside,
        agentId,
        workspace: join(realpathSync(home), 'workspaces', agentId),
        host,
        sessionId: '',
        call: async () => undefined as never
      }
      const server = { name: 'probe', command: ['/usr/bin/node', probeServer], readOnlyPaths: [fixtures], ...attack.server(partial) }
      const workspace = host.agents.service.create(agentId, { profile: { capabilities: ['mcp'], mcpServers: [server] } }).workspace
      expect(workspace).toBe(partial.workspace)
      const sessionId = host.agents.sessions.start(agentId, 'test').sessionId
      const ctx: Context = { ...partial, workspace, sessionId, call: (tool, input = {}) => host.agents.sessions.execute({ sessionId, tool, input }) }
      attack.before?.(ctx)
      try {
        await attack.run(ctx)
        attack.hostUnchanged?.(ctx)
      } finally {
        await host.agents.sessions.end(sessionId)
      }
    })
  })

  it('the profile refuses what could never be right: "/" or ".." in readOnlyPaths, env names that are not names, sandbox keys on unsafe or URL servers', () => {
    const create = (server: Record<string, unknown>) => () =>
      host.agents.service.create('refused', { profile: { capabilities: ['mcp'], mcpServers: [{ name: 'probe', ...server } as McpServerConfig] } })
    expect(create({ command: ['node'], readOnlyPaths: ['/'] })).toThrow(/readOnlyPaths.0: must not be \/ \(the whole file system\)/)
    expect(create({ command: ['node'], readOnlyPaths: ['/usr/../root'] })).toThrow(/readOnlyPaths.0: must not contain "\.\." or NUL/)
    expect(create({ command: ['node'], readOnlyPaths: ['relative/path'] })).toThrow(/readOnlyPaths.0: must be an absolute path/)
    expect(create({ command: ['node'], env: { 'LD-PRELOAD': 'x' } })).toThrow(/mcpServers.0.env/)
    expect(create({ command: ['node'], unsafe: true, network: 'none' })).toThrow(/network: does not apply to a server marked unsafe/)
    expect(create({ url: 'http://127.0.0.1:1/mcp', readOnlyPaths: ['/opt'] })).toThrow(/readOnlyPaths: applies to stdio servers only/)
    expect(host.agents.service.list().map((agent) => agent.id)).not.toContain('refused')
  })
})
