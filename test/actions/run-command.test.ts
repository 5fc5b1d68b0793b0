import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentProfileDefaults } from '@shared/agents'
import { checkEngine, createDockerClient } from '../../src/main/providers'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import { survivorsOf } from '../support/processes'
import { dataOf, executionHarness, until } from './execution-harness'

const docker = createDockerClient()
const [bwrap, engine] = await Promise.all([checkBubblewrapHost(), checkEngine(docker)])
const providers = [
  { id: 'bubblewrap' as const, skip: skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason }), n: 1 },
  { id: 'docker' as const, skip: skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason }), n: 2 }
]

const harness = executionHarness({ prefix: 'airlock-run-command-', docker })
afterAll(() => harness.close(), 60_000)
const { agent, call, hostWrite, workspace } = harness

for (const { id, skip, n } of providers)
  describe.skipIf(skip !== undefined)(`run_command on ${id}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    const profile = { providers: [id] }
    beforeAll(async () => {
      if (id === 'docker') await ensureTestImages(docker)
    }, 600_000)

    it('write / run / fix: a failing test is a completed command with its exit code and assertion; fixed, it passes', async () => {
      const session = agent(`${id}-loop`, profile)
      hostWrite(`loop-${id}/calc.py`, 'def add(a, b):\n    return a - b\n')
      hostWrite(`loop-${id}/test_calc.py`, 'from calc import add\nassert add(2, 2) == 4, f"add(2, 2) returned {add(2, 2)}"\nprint("all tests passed")\n')
      const failing = await call('run_command', { command: 'python3 test_calc.py', cwd: `loop-${id}` }, session)
      expect(failing).toMatchObject({
        ok: true,
        status: 'success',
        data: { exitCode: 1, stdout: '', stdoutTruncated: false, stderrTruncated: false, cwd: `loop-${id}` }
      })
      expect(dataOf(failing).stderr).toMatch(/AssertionError: add\(2, 2\) returned 0/)
      expect(failing.diagnostics).toContain('the command exited with code 1')
      expect(failing.meta.provider).toMatchObject({
        providerId: id,
        preferenceFallback: false,
        isolation: { processContained: true, hostFilesystemRestricted: true, privilegeEscalationBlocked: true, syscallsRestricted: true, networkMode: 'none' }
      })
      // The agent edits the host's file from inside the sandbox, then runs the test again (same directory: the session's).
      // (The fix changes the file's size: Python's bytecode cache trusts size and mtime in whole seconds.)
      const fixed = await call('run_command', { command: "sed -i 's/a - b/a + b  # fixed/' calc.py && python3 test_calc.py" }, session)
      expect(fixed).toMatchObject({ status: 'success', data: { exitCode: 0, stdout: 'all tests passed\n', stderr: '' } })
      expect(harness.history.ends.find((end) => end.callId === fixed.meta.callId)).toMatchObject({
        status: 'success',
        exitCode: 0,
        stdout: 'all tests passed\n',
        provider: { providerId: id }
      })
    })

    it('a file the host put in the workspace is visible to the command, and what the command writes lands there', async () => {
      const session = agent(`${id}-files`, profile)
      hostWrite(`from-host-${id}.txt`, `written by the host for ${id}\n`)
      const result = await call('run_command', { command: `cat from-host-${id}.txt && echo made inside > made-by-${id}.txt` }, session)
      expect(result).toMatchObject({ status: 'success', data: { stdout: `written by the host for ${id}\n`, exitCode: 0 } })
      expect(existsSync(join(workspace, `made-by-${id}.txt`))).toBe(true)
    })

    it('the working directory persists across the calls of a session; other sessions start at the root', async () => {
      const session = agent(`${id}-cwd`, profile)
      const entered = await call('run_command', { command: `mkdir -p sub-${id}/deeper && cd sub-${id}` }, session)
      expect(entered).toMatchObject({ status: 'success', data: { stdout: '', cwd: `sub-${id}` } })
      expect(dataOf(await call('run_command', { command: 'pwd' }, session)).stdout).toBe(`${workspace}/sub-${id}\n`)
      expect(dataOf(await call('run_command', { command: 'cd deeper; printf no-newline' }, session))).toMatchObject({
        stdout: 'no-newline',
        cwd: `sub-${id}/deeper`
      })
      expect(dataOf(await call('run_command', { command: 'pwd; exit 3' }, session))).toMatchObject({ stdout: `${workspace}/sub-${id}/deeper\n`, exitCode: 3 })
      expect(dataOf(await call('run_command', { command: 'pwd' }, agent(`${id}-other`, profile))).stdout).toBe(`${workspace}\n`)
      // An explicit cwd is taken from the workspace root.
      expect(dataOf(await call('run_command', { command: 'pwd', cwd: `sub-${id}` }, session)).stdout).toBe(`${workspace}/sub-${id}\n`)
    })

    it('a directory outside the workspace never becomes the session directory: cd /, a symlink out, a forged report', async () => {
      const session = agent(`${id}-escape`, profile)
      await call('run_command', { command: `mkdir -p inside-${id} && cd inside-${id}` }, session)
      const root = await call('run_command', { command: 'cd / && pwd' }, session)
      expect(dataOf(root)).toMatchObject({ stdout: '/\n', cwd: `inside-${id}` })
      expect(root.diagnostics.join('\n')).toMatch(/the shell ended in "\/", which is outside the workspace: the session stays in inside-/)
      const link = await call('run_command', { command: 'ln -sfn /etc out && cd out' }, session)
      expect(dataOf(link).cwd).toBe(`inside-${id}`)
      expect(link.diagnostics.join('\n')).toMatch(/leads outside the workspace through a symbolic link/)
      // The command can read its own marker (BASH_EXECUTION_STRING) and print a report naming /etc first.
      const forged = await call(
        'run_command',
        { command: `m=$(printf %s "$BASH_EXECUTION_STRING" | grep -o 'AIRLOCK_CWD_[0-9a-f]*' | head -n 1); trap - EXIT; printf '\\n%s/etc%s\\n' "$m" "$m"` },
        session
      )
      expect(dataOf(forged)).toMatchObject({ stdout: '', cwd: `inside-${id}` })
      expect(dataOf(await call('run_command', { command: 'pwd' }, session)).stdout).toBe(`${workspace}/inside-${id}\n`)
      expect(await call('run_command', { command: 'pwd', cwd: '../..' }, session)).toMatchObject({
        status: 'error',
        error: { code: 'run_command.cwd_refused', message: expect.stringMatching(/outside the workspace/) }
      })
      expect(await call('run_command', { command: 'pwd', cwd: `inside-${id}/out` }, session)).toMatchObject({
        status: 'error',
        error: { code: 'run_command.cwd_refused' }
      })
    })

    it('timeout → timed_out with exit code 124, capped at the profile limit, and nothing of the command survives', async () => {
      const marker = `317${n}.25`
      const session = agent(`${id}-timeout`, { ...profile, limits: { ...agentProfileDefaults.limits, timeoutSeconds: 2 } })
      const result = await call('run_command', { command: `echo started; sleep ${marker} & sleep ${marker}`, timeoutSeconds: 600 }, session)
      expect(result).toMatchObject({
        ok: false,
        status: 'timed_out',
        data: { exitCode: 124, stdout: 'started\n' },
        meta: { timeoutSeconds: 2 },
        error: { code: 'timed_out' }
      })
      expect(result.diagnostics).toContain("timeoutSeconds was capped at 2 s (the agent's limit)")
      expect(await survivorsOf(marker)).toEqual([])
    })

    it('cancellation through the call signal ends the running command: cancelled, nothing survives', async () => {
      const marker = `318${n}.25`
      const controller = new AbortController()
      const started = join(workspace, `started-${id}`)
      const running = call('run_command', { command: `touch started-${id}; sleep ${marker}` }, agent(`${id}-cancel`, profile), controller.signal)
      await until(() => existsSync(started), 'the command to start')
      controller.abort()
      const result = await running
      expect(result).toMatchObject({ ok: false, status: 'cancelled', error: { code: 'cancelled' }, data: { exitCode: 130 } })
      expect(await survivorsOf(marker)).toEqual([])
    })

    it('output past the limit is cut and flagged per stream; the report of the directory never shows', async () => {
      const session = agent(`${id}-flood`, { ...profile, limits: { ...agentProfileDefaults.limits, outputBytes: 2000 } })
      const result = await call('run_command', { command: "head -c 10000 /dev/zero | tr '\\0' x; echo small >&2" }, session)
      expect(result).toMatchObject({ status: 'success', data: { stdoutTruncated: true, stderrTruncated: false, stderr: 'small\n', exitCode: 0 } })
      expect(dataOf(result).stdout).toBe('x'.repeat(2000))
      expect(result.diagnostics.join('\n')).toMatch(/output was cut at 2000 bytes per stream/)
      // Just under the cap: the command's output is whole and only the report is cut off.
      const near = await call('run_command', { command: "head -c 1990 /dev/zero | tr '\\0' y" }, session)
      expect(dataOf(near).stdout).toBe('y'.repeat(1990))
      expect(dataOf(near).stdout).not.toMatch(/AIRLOCK/)
    })
  })

describe('run_command isolation and input', () => {
  it('isolation required with providers that cannot satisfy it → error naming every probe; nothing runs', async () => {
    const result = await call(
      'run_command',
      { command: 'touch should-not-exist' },
      agent('required', { isolation: 'required', providers: ['trusted_local'], allowUnsafeLocal: true })
    )
    expect(result).toMatchObject({
      ok: false,
      status: 'error',
      error: { code: 'execution_resource.provider_unavailable', message: expect.stringMatching(/trusted_local: capabilities do not match: isolation/) }
    })
    expect(result.meta.provider).toMatchObject({ probes: [{ providerId: 'trusted_local', eligible: false }] })
    expect(existsSync(join(workspace, 'should-not-exist'))).toBe(false)
  })

  it('isolation preferred falls back to an authorised trusted_local and records the fallback', async () => {
    const result = await call(
      'run_command',
      { command: 'echo ran' },
      agent('preferred', { isolation: 'preferred', providers: ['trusted_local'], allowUnsafeLocal: true })
    )
    expect(result).toMatchObject({
      status: 'success',
      data: { stdout: 'ran\n' },
      meta: { provider: { providerId: 'trusted_local', preferenceFallback: true, isolation: { processContained: false } } }
    })
  })

  it('trusted_local without allowUnsafeLocal is left out (and said so)', async () => {
    const result = await call(
      'run_command',
      { command: 'echo ran' },
      agent('unauthorised', { isolation: 'none', providers: ['trusted_local'], network: 'proxy' })
    )
    expect(result).toMatchObject({ status: 'error', error: { code: 'execution_resource.provider_missing' } })
    expect(result.diagnostics.join('\n')).toMatch(/trusted_local is in the provider order but not authorised/)
  })

  it('the host bash runner, when the profile lists it, runs allowlisted programs as given (no shell, no directory report)', async () => {
    const session = agent('host-runner', { providers: ['bash'], isolation: 'none' })
    hostWrite('host-runner/notes.txt', 'read on the host\n')
    expect(await call('run_command', { command: 'cat notes.txt', cwd: 'host-runner' }, session)).toMatchObject({
      status: 'success',
      data: { stdout: 'read on the host\n', exitCode: 0, cwd: 'host-runner' },
      meta: { provider: { providerId: 'bash' } }
    })
    expect(await call('run_command', { command: 'pwd' }, session)).toMatchObject({ status: 'success', data: { stdout: `${workspace}/host-runner\n` } })
    expect(await call('run_command', { command: 'cd .. && rm -rf notes.txt' }, session)).toMatchObject({
      status: 'error',
      error: { code: 'shell.command_refused' }
    })
  })

  it('invalid input names the field', async () => {
    expect(await call('run_command', { command: '' }, agent('input'))).toMatchObject({
      status: 'error',
      error: { code: 'invalid_input', message: expect.stringMatching(/command: must not be empty/) }
    })
    expect(await call('run_command', { command: 'ls', timeoutSeconds: -1 }, agent('input'))).toMatchObject({
      error: { message: expect.stringMatching(/timeoutSeconds/) }
    })
    expect(await call('run_command', { command: 'ls', shell: 'zsh' }, agent('input'))).toMatchObject({ error: { message: expect.stringMatching(/shell/) } })
  })
})
