import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../src/main/host'
import { checkBubblewrapHost } from '../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from './support/components'
import { makeTempDir } from './support/temp-home'

// SPEC §6.2: the per-agent disk quota is checked on writes and after commands. A command that
// leaves the workspace over quota ends `error` (its output kept); writes are then refused until
// the agent frees space.

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
    host.agents.agents.create('coder', { profile: { providers: ['bubblewrap'], limits: { diskMb: 2 }, approvalTimeoutSeconds: 1 } })
    sessionId = host.agents.sessions.start('coder', 'test').sessionId
  }, 60_000)
  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  it('flags a command that filled the workspace, refuses writes until space is freed', async () => {
    const filled = await call('run_command', { command: 'head -c 3000000 /dev/urandom > big.bin && echo done' })
    expect(filled).toMatchObject({ ok: false, status: 'error', data: { exitCode: 0, stdout: 'done\n' } })
    expect(filled.error!.message).toMatch(/quota/i)
    const refused = await call('write_file', { path: 'note.txt', content: 'x'.repeat(10_000) })
    expect(refused).toMatchObject({ ok: false, status: 'blocked' })
    // Deleting outside scratch/ asks the operator (risk flag `deletion`); nobody decides here, so
    // the item expires (this agent waits 1 s) and the call is denied: nothing is deleted. Moved
    // into scratch/, it is deleted without asking.
    expect(await call('run_command', { command: 'rm big.bin' })).toMatchObject({ status: 'blocked', error: { code: 'approval.denied', message: expect.stringMatching(/expired/) } })
    expect((await call('run_command', { command: 'mv big.bin scratch/ && rm scratch/big.bin' })).ok).toBe(true)
    expect(await call('write_file', { path: 'note.txt', content: 'x'.repeat(10_000) })).toMatchObject({ ok: true })
  }, 60_000)
})
