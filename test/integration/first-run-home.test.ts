// First run to a working day (issue 26): where the home is, and that sandboxes can reach it.
// - The README's path as root with no AIRLOCK_HOME and HOME a 0700 folder (like /root): the home
//   is /var/lib/airlock and the first run_command of a new agent succeeds. It runs in a private
//   mount namespace with a tmpfs on /var/lib/airlock, so the machine's own folder is never touched.
// - A home sandboxes cannot reach is said at start (stderr), by the bubblewrap probe with the fix,
//   and `airlock home move` moves it with agents and tokens kept.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHomeDirectory, resolveHome, systemHome } from '../../src/main/host/paths'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { callTool, connectAgent, startServeWithGateway } from '../support/mcp-gateway-client'
import { airlockBin, runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

const asRoot = process.getuid?.() === 0
const bwrap = await checkBubblewrapHost()
const noBwrap = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => {
  dir = makeTempDir('airlock-first-run-', { outsideTmp: true })
})
afterEach(() => dir.remove())

describe('the default home', () => {
  it('is ~/.airlock for a user, /var/lib/airlock for root, and a root home that already holds a database is kept; AIRLOCK_HOME and --home win', () => {
    const personal = join(homedir(), '.airlock')
    expect(resolveHome(undefined, {}, false)).toBe(personal)
    expect(resolveHome(undefined, { AIRLOCK_HOME: '/srv/a' }, true)).toBe('/srv/a')
    expect(resolveHome('/srv/b', { AIRLOCK_HOME: '/srv/a' }, true)).toBe('/srv/b')
    expect(resolveHome(undefined, {}, true)).toBe(existsSync(join(personal, 'airlock.db')) ? personal : systemHome)
  })
})

describe.skipIf(!asRoot)('an existing home of root’s', () => {
  it('made 0700 (mktemp -d) is made searchable, 0711, never listable; the folders above it are left alone', () => {
    const parent = join(dir.path, 'parent')
    mkdirSync(parent, { mode: 0o700 })
    chmodSync(parent, 0o700)
    const home = join(parent, 'home')
    mkdirSync(home, { mode: 0o700 })
    chmodSync(home, 0o700)
    createHomeDirectory(home)
    expect(statSync(home).mode & 0o777).toBe(0o711)
    expect(statSync(parent).mode & 0o777).toBe(0o700)
  })
})

describe.skipIf(!asRoot || noBwrap !== undefined)(
  `as root, following only the README${asRoot ? '' : ' (skipped: not root)'}${noBwrap ? ` (skipped: ${noBwrap})` : ''}`,
  () => {
    it('npm start with no AIRLOCK_HOME and HOME a 0700 folder: the home is /var/lib/airlock, nothing is reported, and a new agent’s first run_command succeeds', async () => {
      const rootHome = join(dir.path, 'root')
      mkdirSync(rootHome, { mode: 0o700 })
      chmodSync(rootHome, 0o700)
      const agentOut = join(dir.path, 'agent.json')
      // A private mount namespace: /var/lib/airlock is a fresh tmpfs only this process tree sees.
      const script =
        'mkdir -p /var/lib/airlock && mount -t tmpfs -o mode=0755 airlock-first-run /var/lib/airlock && "$0" "$AIRLOCK_BIN" agent create coder --json > "$AGENT_OUT" && exec "$0" "$@"'
      const { AIRLOCK_HOME: _unset, ...env } = process.env
      const served = await startServeWithGateway(['--port', '0', '--gateway-port', '0'], {
        prefix: ['unshare', '-m', '--propagation', 'private', 'sh', '-c', script],
        env: { ...env, HOME: rootHome, AIRLOCK_BIN: airlockBin, AGENT_OUT: agentOut }
      })
      try {
        const created = JSON.parse(readFileSync(agentOut, 'utf8')) as { token: string; workspace: string }
        expect(created.workspace.startsWith(`${systemHome}/workspaces/`)).toBe(true)
        expect(served.stderr()).not.toMatch(/warning/)
        const agent = await connectAgent(served.gatewayLine.replace('Agent gateway: ', ''), created.token)
        try {
          const result = await callTool(agent.client, 'run_command', { command: 'echo first run && id -u' }, { timeout: 120_000 })
          expect(result.structuredContent, JSON.stringify(result.structuredContent.error)).toMatchObject({ status: 'success', data: { exitCode: 0 } })
          expect((result.structuredContent.data as { stdout: string }).stdout).toMatch(/^first run\n60777\n$/)
        } finally {
          await agent.close()
        }
      } finally {
        await served.stop()
      }
    }, 180_000)

    it('a home sandboxes cannot reach is reported — at start on stderr, by `airlock home`, by the bubblewrap probe with the fix — and `airlock home move` moves it, agents and tokens kept', async () => {
      const locked = join(dir.path, 'locked')
      mkdirSync(locked, { mode: 0o700 })
      chmodSync(locked, 0o700)
      const home = join(locked, '.airlock')
      // bubblewrap only: Docker binds the workspace as root and would serve the call anyway.
      const profile = join(dir.path, 'profile.json')
      writeFileSync(profile, JSON.stringify({ providers: ['bubblewrap'] }))
      const created = runAirlock(['agent', 'create', 'coder', '--json', '--profile', profile, '--home', home])
      expect(created.code, created.stderr).toBe(0)
      const { token } = JSON.parse(created.stdout) as { token: string }

      const shown = runAirlock(['home', '--home', home])
      expect(shown.stdout.trim()).toBe(home)
      expect(shown.stderr).toMatch(/cannot reach .* is mode 700\. Fix: .*airlock home move/)

      const served = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home])
      try {
        expect(served.stderr().split('\n')[0]).toMatch(/^airlock: warning: commands cannot run in sandboxes on this home: .*Fix: /)
        const agent = await connectAgent(served.gatewayLine.replace('Agent gateway: ', ''), token)
        try {
          const refused = await callTool(agent.client, 'run_command', { command: 'true' })
          expect(refused.structuredContent.status).not.toBe('success')
          expect(JSON.stringify(refused.structuredContent)).toMatch(/cannot reach .*airlock home move/)
        } finally {
          await agent.close()
        }
      } finally {
        await served.stop()
      }

      // While a console runs on it, the home is not moved.
      mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 })
      writeFileSync(
        join(home, 'run', 'gateway.json'),
        JSON.stringify({ url: 'http://127.0.0.1:9/mcp', port: 9, pid: process.pid, startedAt: new Date().toISOString() })
      )
      const busy = runAirlock(['home', 'move', join(dir.path, 'moved'), '--home', home])
      expect(busy.code).toBe(1)
      expect(busy.stderr).toMatch(/Airlock is running on .*stop it/)
      writeFileSync(join(home, 'run', 'gateway.json'), '{}')

      // Not into a folder that holds something, nor through a symbolic link.
      const full = join(dir.path, 'full')
      mkdirSync(full)
      writeFileSync(join(full, 'keep.txt'), 'x')
      expect(runAirlock(['home', 'move', full, '--home', home]).stderr).toMatch(/exists and is not an empty folder/)
      spawnSync('ln', ['-s', full, join(dir.path, 'link')])
      expect(runAirlock(['home', 'move', join(dir.path, 'link'), '--home', home]).stderr).toMatch(/symbolic link/)
      expect(readFileSync(join(full, 'keep.txt'), 'utf8')).toBe('x')

      const target = join(dir.path, 'srv', 'airlock')
      const moved = runAirlock(['home', 'move', target, '--home', home])
      expect(moved.code, moved.stderr).toBe(0)
      expect(moved.stdout).toContain(`start Airlock with AIRLOCK_HOME=${target}`)
      expect(moved.stderr).toBe('')
      expect(existsSync(home)).toBe(false)
      const listed = runAirlock(['agent', 'list', '--json', '--home', target])
      expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: 'coder' })])

      // The same token works on the moved home, and the first command runs.
      const again = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', target])
      try {
        expect(again.stderr()).not.toMatch(/warning/)
        const agent = await connectAgent(again.gatewayLine.replace('Agent gateway: ', ''), token)
        try {
          const ran = await callTool(agent.client, 'run_command', { command: 'echo moved' }, { timeout: 120_000 })
          expect(ran.structuredContent).toMatchObject({ status: 'success', data: { stdout: 'moved\n' } })
        } finally {
          await agent.close()
        }
      } finally {
        await again.stop()
      }
    }, 240_000)
  }
)
