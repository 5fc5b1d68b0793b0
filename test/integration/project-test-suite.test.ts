// A real project's own test suite through the agent's path (issue 31): CPython's tests, from Debian's
// libpython3.X-testsuite package (installed offline by .ci/run), run by `run_command` on gvisor as an
// agent's MCP call would arrive (policy, provider, run, record), and the same modules run directly
// on the host as the same uid. The counts must match: ran, failures, errors, skipped.
import { spawnSync } from 'node:child_process'
import { mkdirSync, chownSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { sandboxIdentity } from '../../src/main/core'
import { checkGvisorHost } from '../../src/main/providers/gvisor/gvisor-host'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

/** Pure-Python modules of CPython's suite that exercise files, processes' environment, text and numbers. */
const modules = [
  'test_json',
  'test_textwrap',
  'test_string',
  'test_re',
  'test_csv',
  'test_difflib',
  'test_fractions',
  'test_statistics',
  'test_heapq',
  'test_bisect',
  'test_base64',
  'test_shlex',
  'test_glob',
  'test_pathlib',
  'test_tempfile',
  'test_shutil'
].map((name) => `test.${name}`)

const suite = spawnSync('/usr/bin/python3', ['-c', 'import test.test_json'], { encoding: 'utf8' })
const probeHome = makeTempDir('airlock-suite-probe-', { outsideTmp: true })
const gvisor = await checkGvisorHost({ home: probeHome.path })
probeHome.remove()
const skip =
  skipReasonFor('gVisor (runsc)', { available: gvisor.ok, reason: gvisor.ok ? '' : gvisor.reason }) ??
  skipReasonFor("CPython's test suite (libpython3.X-testsuite)", { available: suite.status === 0, reason: suite.stderr.trim() })

/** unittest's summary: `Ran N tests` and `OK` / `FAILED (failures=…, errors=…, skipped=…)`. */
function counts(output: string): { ran: number; failures: number; errors: number; skipped: number } {
  const field = (name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(output)?.[1] ?? 0)
  const ran = /^Ran (\d+) tests?/m.exec(output)?.[1]
  if (ran === undefined) throw new Error(`no unittest summary in:\n${output.slice(-2000)}`)
  return { ran: Number(ran), failures: field('failures'), errors: field('errors'), skipped: field('skipped') }
}

describe.skipIf(skip !== undefined)(`CPython's own tests through run_command on gvisor${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  beforeAll(async () => {
    dir = makeTempDir('airlock-suite-', { outsideTmp: true })
    host = createHost({ home: join(dir.path, 'home'), logError: () => undefined })
    await host.recovered
  })
  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  it('passes as many tests on gvisor as on the host', async () => {
    const command = `python3 -m unittest ${modules.join(' ')} 2>&1 | tail -40`
    host.agents.service.create('suite', {
      profile: {
        capabilities: ['files', 'shell', 'python'],
        providers: ['gvisor'],
        ask: 'never',
        isolation: 'required',
        limits: { timeoutSeconds: 600, cpuSeconds: 600, memoryMb: 1024, pids: 256, outputBytes: 256 * 1024 }
      }
    })
    const { sessionId } = host.agents.sessions.start('suite', 'test')
    const result = await host.agents.sessions.execute({ sessionId, tool: 'run_command', input: { command, timeoutSeconds: 600 } })
    expect(result, JSON.stringify(result.error)).toMatchObject({ ok: true, meta: { provider: { providerId: 'gvisor', isolation: { kernel: 'separate' } } } })
    const sandboxed = counts((result.data as { stdout: string }).stdout)

    // The host's run: the same modules, the same uid, a fresh folder as cwd and HOME.
    const identity = sandboxIdentity()
    const cwd = join(dir.path, 'host-run')
    mkdirSync(cwd)
    if (identity.dedicated) chownSync(cwd, identity.uid, identity.gid)
    const direct = spawnSync('/usr/bin/python3', ['-m', 'unittest', ...modules], {
      cwd,
      env: { PATH: '/usr/bin:/bin', HOME: cwd, LANG: 'C.UTF-8', TMPDIR: '/tmp' },
      encoding: 'utf8',
      timeout: 600_000,
      ...(identity.dedicated ? { uid: identity.uid, gid: identity.gid } : {})
    })
    const onHost = counts(direct.stdout + direct.stderr)
    expect(onHost.ran).toBeGreaterThan(1500)
    expect(sandboxed).toEqual(onHost)
  }, 900_000)
})
