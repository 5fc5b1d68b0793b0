import { spawn } from 'node:child_process'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createHost } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { openStore } from '../../src/main/store'
import { skipReasonFor } from '../support/components'
import { liveProcessesMatching, survivorsOf } from '../support/processes'
import { makeTempDir } from '../support/temp-home'

// SPEC §10 and "nothing is lost when the host stops mid-call": a host process is SIGKILLed (no
// shutdown code runs) while a call runs in a sandbox. The call's row was written `running` before
// the command started; the next start marks it `interrupted`, chains it, ends the session, and
// nothing the call started is still running.

const repoRoot = resolve(__dirname, '../..')
const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
const dir = makeTempDir('airlock-crash-', { outsideTmp: true })
afterAll(() => dir.remove())

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

describe.skipIf(skip !== undefined)(`a host killed mid-call${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('leaves a running row that the next start turns into an interrupted, chained one, with no survivor', async () => {
    const marker = `airlock-crash-${process.pid}-${Date.now()}`
    const child = spawn(join(repoRoot, 'node_modules/.bin/vitest'), ['run', '--config', 'test/security/fixtures/vitest.fixtures.config.ts', 'host-mid-call'], {
      cwd: repoRoot,
      env: { ...process.env, AIRLOCK_FIXTURE_HOME: dir.path, AIRLOCK_FIXTURE_MARKER: marker, AIRLOCK_SKIP_BUILD: '1' },
      stdio: 'ignore',
      detached: true
    })
    try {
      await waitFor('the sandboxed sleep', () => (liveProcessesMatching(marker).length > 0 ? true : undefined))
      const store = openStore(join(dir.path, 'airlock.db'))
      try {
        expect(store.history.list({}).rows).toMatchObject([{ tool: 'run_command', status: 'running' }])
      } finally {
        store.close()
      }
    } finally {
      process.kill(-child.pid!, 'SIGKILL')
    }
    // The sandbox dies with its launcher (--die-with-parent); nothing of the call may outlive the host.
    expect(await survivorsOf(marker)).toEqual([])

    const host = createHost({ home: dir.path, logError: () => undefined })
    try {
      await host.recovered
      const [row] = host.agents.history.list({}).rows
      expect(row).toMatchObject({ tool: 'run_command', status: 'interrupted', error: { code: 'interrupted' } })
      expect(host.agents.history.verify()).toMatchObject({ ok: true, rows: 1 })
      expect(host.store.db.prepare('select end_reason from sessions').pluck().all()).toEqual(['interrupted'])
    } finally {
      await host.dispose()
    }
  }, 240_000)
})
