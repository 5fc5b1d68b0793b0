import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { checkEngine, createDockerClient } from '../../src/main/providers'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import { runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

// The write / run / fix loop of SPEC §1, end to end through the real host: an agent registered
// with the agent service, a session opened through the API the MCP gateway calls, every call
// through the ActionDispatcher on a real sandbox provider, and every call in the hash-chained history.

const docker = createDockerClient()
const [bwrap, engine] = await Promise.all([checkBubblewrapHost(), checkEngine(docker)])
const providers = [
  { id: 'bubblewrap', skip: skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason }) },
  { id: 'docker', skip: skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason }) }
] as const

const buggy = 'def add(a, b):\n    return a - b\n'
const testModule = 'from calc import add\n\nresult = add(2, 3)\nassert result == 5, f"add(2, 3) returned {result}, expected 5"\nprint("all tests passed")\n'

for (const { id, skip } of providers) {
  describe.skipIf(skip !== undefined)(`the write / run / fix loop on ${id}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let dir: ReturnType<typeof makeTempDir>
    let host: Host
    let sessionId: string
    const call = (tool: string, input: unknown) => host.agents.sessions.execute({ sessionId, tool, input })

    beforeAll(async () => {
      if (id === 'docker') await ensureTestImages(docker)
      dir = makeTempDir(`airlock-loop-${id}-`, { outsideTmp: true })
      host = createHost({ home: dir.path, logError: () => undefined })
      await host.recovered
      host.agents.service.create('coder', { profile: { providers: [id] } })
      sessionId = host.agents.sessions.start('coder', 'test').sessionId
    }, 240_000)

    afterAll(async () => {
      await host?.dispose()
      dir?.remove()
    })

    it('writes, runs a failing test, reads the assertion, fixes it, reruns, runs code with outputs, keeps cwd', async () => {
      expect(await call('write_file', { path: 'calc.py', content: buggy })).toMatchObject({ ok: true, data: { path: 'calc.py', bytes: buggy.length } })
      expect((await call('write_file', { path: 'test_calc.py', content: testModule })).ok).toBe(true)

      const failing = await call('run_command', { command: 'python3 test_calc.py' })
      expect(failing.data).toMatchObject({ exitCode: 1 })
      expect((failing.data as { stderr: string }).stderr).toContain('AssertionError: add(2, 3) returned -1, expected 5')
      expect(failing.meta.provider).toMatchObject({ providerId: id })

      const edit = await call('edit_file', { path: 'calc.py', oldText: 'return a - b', newText: 'return a + b' })
      expect(edit).toMatchObject({ ok: true, data: { path: 'calc.py', replacements: 1 } })
      expect((edit.data as { diff: string }).diff).toContain('+    return a + b')

      const passing = await call('run_command', { command: 'python3 test_calc.py' })
      expect(passing).toMatchObject({ ok: true, status: 'success', data: { exitCode: 0, stdout: 'all tests passed\n' } })

      const code = await call('run_code', {
        language: 'python',
        sourceCode: 'import os\nopen(os.path.join(os.environ["AIRLOCK_OUTPUT_DIR"], "sum.txt"), "w").write(str(2 + 3))\nprint("wrote")\n',
        expectedOutputs: ['output/sum.txt']
      })
      expect(code).toMatchObject({ ok: true, data: { exitCode: 0, stdout: 'wrote\n' } })
      expect(code.artifacts).toEqual([expect.objectContaining({ bytes: 1 })])
      expect(readFileSync(code.artifacts[0]!.path, 'utf8')).toBe('5')

      expect((await call('run_command', { command: 'mkdir -p sub && cd sub' })).data).toMatchObject({ exitCode: 0 })
      const pwd = await call('run_command', { command: 'pwd' })
      expect((pwd.data as { stdout: string }).stdout.trim()).toMatch(/\/sub$/)
    }, 240_000)

    it('recorded every call, in a chain that verifies, and one .exec_history line per call', async () => {
      const page = host.agents.history.list({ agentId: 'coder' })
      expect(page.rows.map((row) => row.tool).reverse()).toEqual([
        'write_file',
        'write_file',
        'run_command',
        'edit_file',
        'run_command',
        'run_code',
        'run_command',
        'run_command'
      ])
      const failed = page.rows.find((row) => row.tool === 'run_command' && row.exitCode === 1)!
      expect(failed).toMatchObject({ status: 'success', providerId: id })
      expect(host.agents.history.detail(failed.id).stderr).toMatchObject({ text: expect.stringContaining('AssertionError') })
      const lines = readFileSync(join(host.agents.service.workspaceOf('coder'), '.exec_history'), 'utf8')
        .trim()
        .split('\n')
      expect(lines).toHaveLength(8)
      const verify = runAirlock(['audit', 'verify', '--home', dir.path])
      expect(verify.stdout.trim().split('\n')[0]).toBe('chain ok: 8 rows')
      expect(verify.stdout).toMatch(/^ledger ok: \d+ entries$/m)
      expect(verify.code).toBe(0)
    }, 60_000)
  })
}
