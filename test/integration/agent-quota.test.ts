import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

// SPEC §6.2: the per-agent disk quota is checked on writes, held while commands run, and checked
// after them. A command that takes the workspace over quota ends `error` (its output kept); writes
// are then refused until the agent frees space.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

describe.skipIf(skip !== undefined)(`the disk quota${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let sessionId: string
  const call = (tool: string, input: unknown) => host.agents.sessions.execute({ sessionId, tool, input })

  beforeAll(async () => {
    dir = makeTempDir('airlock-quota-', { outsideTmp: true })
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    host.agents.service.create('coder', { profile: { providers: ['bubblewrap'], limits: { diskMb: 2 }, approvalTimeoutSeconds: 1 } })
    host.agents.service.create('flooder', { profile: { providers: ['bubblewrap'], ask: 'never', limits: { diskMb: 50, timeoutSeconds: 60 } } })
    sessionId = host.agents.sessions.start('coder', 'test').sessionId
  }, 60_000)
  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  it('flags a command that filled the workspace, refuses writes until space is freed', async () => {
    const filled = await call('run_command', { command: 'head -c 3000000 /dev/urandom > big.bin && echo done' })
    // Ended by the after-run check (exit 0, "done") or, if the watch saw it first, stopped while it wrote.
    expect(filled).toMatchObject({ ok: false, status: 'error', error: { code: 'workspace_file.quota_exceeded' } })
    expect(filled.error!.message).toMatch(/quota/i)
    const refused = await call('write_file', { path: 'note.txt', content: 'x'.repeat(10_000) })
    expect(refused).toMatchObject({ ok: false, status: 'blocked' })
    // Deleting a path only known at run time asks the operator (risk flag `deletion`); nobody
    // decides here, so the item expires (this agent waits 1 s) and the call is denied: nothing is
    // deleted. Deleting it by name runs without asking: its checkpoint keeps it (recoverable_deletion).
    expect(await call('run_command', { command: 'rm "$(printf big.bin)"' })).toMatchObject({
      status: 'blocked',
      error: { code: 'approval.denied', message: expect.stringMatching(/expired/) }
    })
    const freed = await call('run_command', { command: 'rm big.bin' })
    expect(freed).toMatchObject({ ok: true, meta: { policy: { riskFlags: ['recoverable_deletion'] } } })
    expect(await call('write_file', { path: 'note.txt', content: 'x'.repeat(10_000) })).toMatchObject({ ok: true })
  }, 60_000)

  it('a run in a workspace already over its quota may free space while it goes; one that writes more is still stopped', async () => {
    host.agents.service.create('cleaner', { profile: { providers: ['bubblewrap'], ask: 'never', limits: { diskMb: 20, timeoutSeconds: 60 } } })
    const session = host.agents.sessions.start('cleaner', 'test').sessionId
    const run = (command: string) => host.agents.sessions.execute({ sessionId: session, tool: 'run_command', input: { command } })
    try {
      // Over quota before the run (a flood stopped mid-way leaves it so): 30 MiB against 20.
      const filled = await run('head -c 31457280 /dev/zero > old.bin; echo done')
      expect(filled).toMatchObject({ status: 'error', error: { code: 'workspace_file.quota_exceeded' } })
      // The run waits a while before it deletes: the watch looks several times meanwhile, the workspace over quota but not growing.
      const freed = await run('sleep 1; rm -f old.bin; echo freed')
      expect(freed.status, JSON.stringify(freed.error)).toBe('success')
      expect((freed.data as { stdout: string }).stdout).toContain('freed')
      // Over quota again, a run that writes more on top is stopped as it writes.
      expect(await run('head -c 31457280 /dev/zero > old.bin; echo done')).toMatchObject({ status: 'error' })
      const more = await run('for i in $(seq 1 40); do head -c 1048576 /dev/zero > more$i; sleep 0.05; done; echo finished')
      expect(more).toMatchObject({
        status: 'error',
        error: { code: 'workspace_file.quota_exceeded', message: expect.stringMatching(/stopped while it wrote/) }
      })
      expect((more.data as { stdout: string }).stdout).not.toContain('finished')
    } finally {
      await host.agents.sessions.end(session)
    }
  }, 120_000)

  it('holds while the run goes: a run writing far past its quota is stopped as it writes, not found over afterwards', async () => {
    const session = host.agents.sessions.start('flooder', 'test').sessionId
    try {
      // 400 files of 1 MiB against a 50 MiB quota.
      const flood = await host.agents.sessions.execute({
        sessionId: session,
        tool: 'run_command',
        input: { command: 'mkdir fill && for i in $(seq 1 400); do head -c 1048576 /dev/zero > fill/f$i; done; echo finished' }
      })
      expect(flood).toMatchObject({
        ok: false,
        status: 'error',
        error: { code: 'workspace_file.quota_exceeded', message: expect.stringMatching(/stopped while it wrote/) }
      })
      expect((flood.data as { stdout: string }).stdout).not.toContain('finished')
      expect(readdirSync(join(dir.path, 'workspaces', 'flooder', 'fill')).length).toBeLessThan(300)
      const removed = await host.agents.sessions.execute({ sessionId: session, tool: 'run_command', input: { command: 'rm -rf fill' } })
      expect(removed.status, JSON.stringify(removed.error)).toBe('success')
      // Inodes count too: empty files cost no blocks (50 MiB allows 12 800 entries).
      const files = await host.agents.sessions.execute({
        sessionId: session,
        tool: 'run_command',
        input: { command: 'mkdir many && cd many && seq 1 300000 | xargs touch; echo finished' }
      })
      expect(files).toMatchObject({
        ok: false,
        status: 'error',
        error: { code: 'workspace_file.quota_exceeded', message: expect.stringMatching(/files and folders.*stopped while it wrote/) }
      })
      expect(readdirSync(join(dir.path, 'workspaces', 'flooder', 'many')).length).toBeLessThan(300_000)
    } finally {
      await host.agents.sessions.end(session)
    }
  }, 120_000)
})
