import { realpathSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

// Attacks on run_command's persisted working directory: the command reads the per-call marker
// from its own command line, turns the EXIT trap off and forges the report (the host's root, a
// link to it, `.airlock/`), or leaves the session in a folder that it then replaces with a link
// to `/`. Safe outcome: every later call starts inside the workspace, never in `.airlock/`.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

/** Prints a forged directory report for `path` with the real marker, after turning the trap off. */
const forge = (path: string) =>
  `m=$(tr '\\0' '\\n' < /proc/$$/cmdline | grep -o 'AIRLOCK_CWD_[0-9a-f]*' | head -n1); trap - EXIT; printf '\\n%s%s%s\\n' "$m" "${path}" "$m"`

describe.skipIf(skip !== undefined)(`run_command's session directory under attack${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let workspace: string

  beforeAll(async () => {
    dir = makeTempDir('airlock-attack-cwd-', { outsideTmp: true })
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    host.agents.service.create('coder', { profile: { providers: ['bubblewrap'], ask: 'never' } })
    workspace = realpathSync(host.agents.service.workspaceOf('coder'))
  }, 120_000)

  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  it('refuses forged and raced reports; the next call starts inside the workspace', async () => {
    const { sessionId } = host.agents.sessions.start('coder', 'cwd')
    const run = async (command: string) => {
      const result = await host.agents.sessions.execute({ sessionId, tool: 'run_command', input: { command } })
      return result.data as { stdout: string; cwd: string }
    }
    const where = async () => (await run('pwd -P')).stdout.trim()

    // The forgery itself works (a report inside the workspace is taken), so the refusals below are real.
    await run('mkdir -p inside')
    expect((await run(forge(`${workspace}/inside`))).cwd).toBe('inside')
    expect((await run(forge('/'))).cwd).toBe('inside')
    await run(`cd ${workspace}`)
    expect((await run(forge('/'))).cwd).toBe('.')
    expect(await where()).toBe(workspace)

    expect((await run(`ln -sfn / up; ${forge(`${workspace}/up`)}`)).cwd).toBe('.')
    expect(await where()).toBe(workspace)

    expect((await run(forge(`${workspace}/.airlock/executions`))).cwd).toBe('.')
    expect(await where()).toBe(workspace)

    // The report is forged to a folder that becomes a link to / right after.
    expect((await run('mkdir -p d && cd d')).cwd).toBe('d')
    await run('cd .. && mv d d2 && ln -s / d && cd d')
    const next = await run('pwd -P; ls')
    expect(next.stdout.split('\n')[0]).toBe(workspace)
    expect(next.cwd).toBe('.')
  }, 120_000)
})
