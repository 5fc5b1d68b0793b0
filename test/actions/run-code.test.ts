import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkEngine, createDockerClient } from '../../src/main/providers'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import { liveProcessesMatching, survivorsOf } from '../support/processes'
import { dataOf, executionHarness, until } from './execution-harness'

const docker = createDockerClient()
const [bwrap, engine] = await Promise.all([checkBubblewrapHost(), checkEngine(docker)])
const providers = [
  { id: 'bubblewrap' as const, skip: skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason }), n: 1 },
  { id: 'docker' as const, skip: skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason }), n: 2 }
]

const harness = executionHarness({ prefix: 'airlock-run-code-', docker })
afterAll(() => harness.close(), 60_000)
const { agent, call, manager, workspace } = harness

for (const { id, skip, n } of providers)
  describe.skipIf(skip !== undefined)(`run_code on ${id}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    const profile = { providers: [id] }
    beforeAll(async () => {
      if (id === 'docker') await ensureTestImages(docker)
    }, 600_000)

    it('runs python with a declared output: data, the output as an artifact, the provider and its isolation', async () => {
      const result = await call(
        'run_code',
        {
          language: 'python',
          sourceCode: "import os\nopen(os.environ['AIRLOCK_OUTPUT_DIR'] + '/report.csv', 'w').write('a,b\\n1,2\\n')\nprint('wrote report')",
          expectedOutputs: ['output/report.csv']
        },
        agent(`${id}-outputs`, profile)
      )
      const sha256 = createHash('sha256').update('a,b\n1,2\n').digest('hex')
      expect(result).toMatchObject({
        ok: true,
        status: 'success',
        data: {
          stdout: 'wrote report\n',
          stderr: '',
          exitCode: 0,
          stdoutTruncated: false,
          stderrTruncated: false,
          outputs: [{ path: 'output/report.csv', bytes: 8, sha256 }]
        },
        artifacts: [{ name: 'output/report.csv', bytes: 8, sha256 }],
        meta: {
          provider: {
            providerId: id,
            preferenceFallback: false,
            isolation: { processContained: true, hostFilesystemRestricted: true, privilegeEscalationBlocked: true, syscallsRestricted: true }
          }
        }
      })
      expect(readFileSync(result.artifacts[0]!.path, 'utf8')).toBe('a,b\n1,2\n')
      expect(result.artifacts[0]!.path.startsWith(`${workspace}/.airlock/executions/${String(result.meta.callId)}/`)).toBe(true)
    })

    it('a failing program is a completed run with its exit code and traceback; declared outputs then make it an error', async () => {
      const session = agent(`${id}-failing`, profile)
      const failing = await call('run_code', { language: 'python', sourceCode: 'print("before")\nprint(1 / 0)' }, session)
      expect(failing).toMatchObject({ ok: true, status: 'success', data: { stdout: 'before\n', exitCode: 1, outputs: [] } })
      expect(dataOf(failing).stderr).toMatch(/ZeroDivisionError: division by zero/)
      expect(failing.diagnostics).toContain('the run step exited with code 1')
      const withOutputs = await call('run_code', { language: 'python', sourceCode: 'raise SystemExit(3)', expectedOutputs: ['output/never.txt'] }, session)
      expect(withOutputs).toMatchObject({
        ok: false,
        status: 'error',
        data: { exitCode: 3 },
        error: { code: 'exit_code', message: expect.stringMatching(/declared outputs were not collected/) }
      })
      const missing = await call('run_code', { language: 'python', sourceCode: 'print("forgot")', expectedOutputs: ['output/missing.txt'] }, session)
      expect(missing).toMatchObject({ status: 'error', error: { code: 'expected_output_missing' } })
    })

    it('the session keeps its code resource warm: one handle across calls, held once, released with the session', async () => {
      const session = agent(`${id}-warm`, profile)
      const first = await call('run_code', { language: 'python', sourceCode: 'print(1)' }, session)
      const second = await call('run_code', { language: 'python', sourceCode: 'print(2)' }, session)
      expect([dataOf(first).stdout, dataOf(second).stdout]).toEqual(['1\n', '2\n'])
      const held = manager.list({ scope: 'session', ownerId: session.sessionId })
      expect(held.map((h) => [h.kind, h.providerId, h.refCount])).toEqual([['code_execution', id, 1]])
      expect([first.meta.provider, second.meta.provider]).toMatchObject([{ handleId: held[0]!.handleId }, { handleId: held[0]!.handleId }])
      await harness.dispatcher.sessions.end(session.sessionId)
      expect(manager.list({ scope: 'session', ownerId: session.sessionId })).toEqual([])
    })

    it('cancellation through the call signal ends the program and what it started: cancelled, nothing survives', async () => {
      const marker = `419${n}.25`
      const controller = new AbortController()
      const running = call(
        'run_code',
        { language: 'python', sourceCode: `import subprocess\nsubprocess.run(['sleep', '${marker}'])` },
        agent(`${id}-cancel`, profile),
        controller.signal
      )
      await until(() => liveProcessesMatching(marker).length > 0, 'the program to start')
      controller.abort()
      expect(await running).toMatchObject({ ok: false, status: 'cancelled', error: { code: 'cancelled' }, data: { exitCode: 130 } })
      expect(await survivorsOf(marker)).toEqual([])
    })
  })

describe('run_code policy', () => {
  it('a language outside the agent runtimes is blocked before anything runs', async () => {
    const result = await call('run_code', { language: 'nodejs', sourceCode: 'console.log(1)' }, agent('runtimes', { runtimes: ['python'] }))
    expect(result).toMatchObject({
      ok: false,
      status: 'blocked',
      error: { code: 'policy.runtime_not_allowed', message: expect.stringMatching(/nodejs is not among the agent's runtimes \(python\)/) },
      meta: { policy: { rule: 'runtime.not_allowed' } }
    })
    expect(manager.list({ ownerId: 'runtimes' })).toEqual([])
  })

  it('isolation required with providers that cannot satisfy it → error naming every probe; nothing runs', async () => {
    const result = await call(
      'run_code',
      { language: 'python', sourceCode: 'print(1)' },
      agent('required', { isolation: 'required', providers: ['trusted_local'], allowUnsafeLocal: true })
    )
    expect(result).toMatchObject({
      ok: false,
      status: 'error',
      error: { code: 'execution_resource.provider_unavailable', message: expect.stringMatching(/trusted_local: capabilities do not match: isolation/) }
    })
    expect(result.meta.provider).toMatchObject({ probes: [{ providerId: 'trusted_local', eligible: false }] })
  })

  it('invalid requests name the field', async () => {
    expect(await call('run_code', { language: 'python' }, agent('input'))).toMatchObject({
      status: 'error',
      error: { code: 'invalid_input', message: expect.stringMatching(/sourceCode: give exactly one of sourceCode or files/) }
    })
    expect(await call('run_code', { language: 'python', sourceCode: 'x', expectedOutputs: ['../x'] }, agent('input'))).toMatchObject({
      error: { message: expect.stringMatching(/expectedOutputs\.0/) }
    })
  })
})
