import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { checkEngine, createDockerClient } from '../../src/main/providers'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import { makeTempDir } from '../support/temp-home'

// Attacks on the execution areas and the host's `.exec_history` append, through the real host on
// each sandbox provider: a later command or run looking into an earlier call's area, the agent
// renaming the host-kept `.airlock/` out of the way, and `.exec_history` planted as a symlink to
// a host file, a FIFO, or a hard link to another workspace file.

const docker = createDockerClient()
const [bwrap, engine] = await Promise.all([checkBubblewrapHost(), checkEngine(docker)])
const providers = [
  { id: 'bubblewrap', skip: skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason }) },
  { id: 'docker', skip: skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason }) }
] as const

const areaCanary = 'areacanary-5e2b90c1'

for (const { id, skip } of providers) {
  describe.skipIf(skip !== undefined)(`execution areas and .exec_history on ${id}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let dir: ReturnType<typeof makeTempDir>
    let host: Host
    let outside: string
    let workspace: string

    beforeAll(async () => {
      if (id === 'docker') await ensureTestImages(docker)
      dir = makeTempDir(`airlock-attack-areas-${id}-`, { outsideTmp: true })
      outside = join(dir.path, 'outside')
      mkdirSync(outside, { mode: 0o755 })
      host = createHost({ home: join(dir.path, 'home'), logError: () => undefined })
      await host.recovered
      host.agents.service.create('coder', { profile: { providers: [id], ask: 'never' } })
      workspace = host.agents.service.workspaceOf('coder')
    }, 240_000)

    afterAll(async () => {
      await host?.dispose()
      dir?.remove()
    })

    it("a later command or run never sees an earlier call's execution area", async () => {
      const { sessionId } = host.agents.sessions.start('coder', 'areas')
      const call = (tool: string, input: unknown) => host.agents.sessions.execute({ sessionId, tool, input })
      const first = await call('run_code', {
        language: 'python',
        sourceCode: `import os\nopen(os.path.join(os.environ['AIRLOCK_OUTPUT_DIR'], 'keep.txt'), 'w').write('${areaCanary}')\nopen('left.txt', 'w').write('${areaCanary}')\n`,
        expectedOutputs: ['output/keep.txt']
      })
      expect(first.status).toBe('success')
      const command = await call('run_command', {
        command: `ls -la .airlock .airlock/executions 2>&1; cat .airlock/executions/*/output/* .airlock/executions/*/source/* 2>&1; grep -r ${areaCanary} . 2>&1 | head; true`
      })
      expect(command.status).toBe('success')
      expect(JSON.stringify(command.data)).not.toContain(areaCanary)
      const probe = `import os, glob\nws = ${JSON.stringify(workspace)}\nseen = []\nfor p in glob.glob(ws + '/.airlock/executions/*/**', recursive=True) + glob.glob('../../*/**', recursive=True):\n    try:\n        seen.append(p + '=' + open(p).read())\n    except Exception as e:\n        seen.append(p + ':' + type(e).__name__)\nprint('\\n'.join(seen))\n`
      const second = await call('run_code', { language: 'python', sourceCode: probe })
      expect(second.status).toBe('success')
      expect(JSON.stringify(second.data)).not.toContain(areaCanary)
    }, 120_000)

    it("renaming .airlock out of the way fails and leaves the host's folder in place", async () => {
      const { sessionId } = host.agents.sessions.start('coder', 'rename')
      const airlock = join(workspace, '.airlock')
      const before = statSync(airlock)
      const renamed = await host.agents.sessions.execute({
        sessionId,
        tool: 'run_command',
        input: { command: 'mv .airlock moved 2>&1; mkdir -p .airlock/executions 2>&1; rmdir .airlock/executions 2>&1; ls -la' }
      })
      expect(renamed.status).toBe('success')
      const after = statSync(airlock)
      expect({ ino: after.ino, uid: after.uid }).toEqual({ ino: before.ino, uid: before.uid })
      expect(existsSync(join(workspace, 'moved'))).toBe(false)
    }, 60_000)

    it("a planted .exec_history never redirects the host's append", async () => {
      const { sessionId } = host.agents.sessions.start('coder', 'history')
      const call = (tool: string, input: unknown) => host.agents.sessions.execute({ sessionId, tool, input })
      const target = join(outside, 'victim')
      writeFileSync(target, 'host file\n', { mode: 0o666 })
      const victim = join(workspace, 'victim.txt')
      // A symbolic link to a host file.
      await call('run_command', { command: `rm -f .exec_history && ln -s ${target} .exec_history` })
      await call('run_command', { command: 'true' })
      expect(readFileSync(target, 'utf8')).toBe('host file\n')
      // A hard link to another file of the workspace.
      await call('run_command', { command: 'rm -f .exec_history && echo mine > victim.txt && ln victim.txt .exec_history' })
      await call('run_command', { command: 'true' })
      expect(readFileSync(victim, 'utf8')).toBe('mine\n')
      // A FIFO with and without a reader: the call still ends, nothing blocks.
      await call('run_command', { command: 'rm -f .exec_history && mkfifo .exec_history' })
      const started = Date.now()
      const ended = await call('run_command', { command: 'true' })
      expect(ended.status).toBe('success')
      expect(Date.now() - started).toBeLessThan(30_000)
      expect(readFileSync(target, 'utf8')).toBe('host file\n')
    }, 120_000)
  })
}
