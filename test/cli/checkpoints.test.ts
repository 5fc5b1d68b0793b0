import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ActionResult } from '../../src/main/core'
import { createHost, type Host } from '../../src/main/host'
import { runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

// `airlock checkpoints` through the built CLI, while a console (a host on the same home) runs:
// the operator lists an agent's checkpoints, reads a call's diff, reverts it and restores the
// workspace to before a call; the running host sees the undo (its agent is told at its next call).

const cliTimeoutMs = 120_000
let dir: ReturnType<typeof makeTempDir>
let host: Host
let sessionId: string
const checkpoints = (...args: string[]) => runAirlock(['checkpoints', ...args, '--home', dir.path])
const call = (tool: string, input: unknown): Promise<ActionResult> => host.agents.sessions.execute({ sessionId, tool, input })
const file = (name: string) => join(dir.path, 'workspaces', 'coder', name)

beforeAll(async () => {
  dir = makeTempDir('airlock-cli-checkpoints-', { outsideTmp: true })
  host = createHost({ home: dir.path, logError: () => undefined })
  await host.recovered
  host.agents.service.create('coder', { profile: { ask: 'never' } })
  sessionId = host.agents.sessions.start('coder', 'test').sessionId
}, cliTimeoutMs)
afterAll(async () => {
  await host?.dispose()
  dir?.remove()
})

describe('airlock checkpoints', () => {
  it(
    'lists, diffs, reverts and restores; the running host tells the agent',
    async () => {
      const first = await call('write_file', { path: 'notes.md', content: 'alpha\nbeta\n' })
      const second = await call('edit_file', { path: 'notes.md', oldText: 'beta', newText: 'gamma' })
      const third = await call('write_file', { path: 'other.txt', content: 'x' })
      expect([first.ok, second.ok, third.ok]).toEqual([true, true, true])

      const listed = checkpoints('list', '--agent', 'coder')
      expect(listed.code, listed.stderr).toBe(0)
      expect(listed.stdout).toContain(second.meta.callId as string)
      expect(listed.stdout).toMatch(/Store: \d+\.\d MiB for coder\./)
      const json = JSON.parse(checkpoints('list', '--agent', 'coder', '--json').stdout)
      expect(json.checkpoints.map((c: { callId: string }) => c.callId)).toEqual([third.meta.callId, second.meta.callId, first.meta.callId])

      const diff = checkpoints('diff', second.meta.callId as string)
      expect(diff.code, diff.stderr).toBe(0)
      expect(diff.stdout).toContain('modified notes.md')
      expect(diff.stdout).toContain('-beta')
      expect(diff.stdout).toContain('+gamma')

      // A conflict: the first call's file changed again since (the second call), so it is refused, named.
      const refused = checkpoints('revert', first.meta.callId as string)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain('notes.md')

      const reverted = checkpoints('revert', second.meta.callId as string)
      expect(reverted.code, reverted.stderr).toBe(0)
      expect(readFileSync(file('notes.md'), 'utf8')).toBe('alpha\nbeta\n')
      const told = await call('list_directory', { path: '.' })
      expect(told.meta.workspaceChanged).toEqual([expect.objectContaining({ by: 'operator', action: 'revert' })])

      // The host read the index the CLI wrote: its next call records only its own change, nothing "outside".
      const before = host.agents.checkpoints.list('coder', { limit: 1 })[0]!.seq
      const fourth = await call('write_file', { path: 'fourth.txt', content: '4' })
      expect(
        host.agents.checkpoints
          .list('coder', { limit: 10 })
          .filter((c) => c.seq > before)
          .map((c) => c.kind)
      ).toEqual(['call'])

      const restored = checkpoints('restore', '--before', first.meta.callId as string)
      expect(restored.code, restored.stderr).toBe(0)
      for (const name of ['notes.md', 'other.txt', 'fourth.txt']) expect(existsSync(file(name))).toBe(false)
      expect(fourth.ok).toBe(true)

      expect(checkpoints('diff', '00000000-0000-4000-8000-000000000000').code).toBe(1)
      expect(checkpoints('revert', '../etc').code).toBe(2)
      expect(checkpoints('restore', first.meta.callId as string).code).toBe(2)
      expect(checkpoints('list').code).toBe(2)
    },
    cliTimeoutMs
  )
})
