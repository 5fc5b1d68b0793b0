import { spawn } from 'node:child_process'
import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAlive } from '../../../../test/support/processes'
import { makeTempDir } from '../../../../test/support/temp-home'
import { claimWorkspace, ExecutionResourceManager, type CommandRunner } from '../../core'
import { TrustedLocalProvider } from '../trusted-local/trusted-local-provider'
import { RunLedger, startTicksOf } from './run-ledger'

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => {
  dir = makeTempDir('airlock-run-ledger-', { outsideTmp: true })
})
afterEach(() => dir.remove())

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
  return check()
}

describe('run ledger (crash recovery of host process groups)', () => {
  it('a trusted_local run is recorded while it runs; the next start ends its group, then the record is gone', async () => {
    const runs = join(dir.path, 'runs')
    const workspace = join(dir.path, 'ws')
    claimWorkspace(workspace)
    const manager = new ExecutionResourceManager().registerProvider(new TrustedLocalProvider({ runLedger: new RunLedger(runs) }))
    const handle = await manager.ensure({
      kind: 'bash',
      providerId: 'trusted_local',
      config: { allowUnsafeLocal: true },
      policy: { workspaceRoots: [workspace], timeoutSeconds: 60 }
    })
    // setsid-free background child in the same group, as a detached run leaves it.
    const running = (handle.resource as CommandRunner).run({ command: 'sleep 300 & echo $! > child.pid; wait' })
    expect(await waitFor(() => existsSync(runs) && readdirSync(runs).length === 1)).toBe(true)
    // A new process on the same home (this provider instance stands in for it) recovers.
    const ended = await new TrustedLocalProvider({ runLedger: new RunLedger(runs) }).recover()
    expect(ended).toContainEqual(expect.stringMatching(/^process group \d+$/))
    // Where the host has cgroups, the run's per-run cgroups were recorded and are removed too.
    for (const entry of ended.slice(1)) expect(entry).toMatch(/^cgroup \/sys\/fs\/cgroup\//)
    const result = await running
    expect(result.exitCode).not.toBe(0)
    expect(readdirSync(runs)).toEqual([])
    await manager.releaseAll()
  })

  it('never signals a reused pid: a record whose start time differs is dropped, the process lives', async () => {
    const runs = join(dir.path, 'runs')
    const bystander = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' })
    const pid = bystander.pid!
    new RunLedger(runs).record('trusted_local', pid)
    const [file] = readdirSync(runs)
    writeFileSync(join(runs, file!), JSON.stringify({ providerId: 'trusted_local', pid, startTicks: String(Number(startTicksOf(pid)) + 1), cgroups: [] }))
    expect(new RunLedger(runs).recover('trusted_local')).toEqual([])
    expect(isAlive(pid)).toBe(true)
    expect(readdirSync(runs)).toEqual([])
    process.kill(-pid, 'SIGKILL')
  })

  it("leaves other providers' records and ignores malformed ones", () => {
    const runs = join(dir.path, 'runs')
    const stop = new RunLedger(runs).record('bubblewrap', process.pid)
    writeFileSync(join(runs, 'trusted_local-1-2.json'), '{not json')
    expect(new RunLedger(runs).recover('trusted_local')).toEqual([])
    expect(readdirSync(runs)).toHaveLength(1)
    stop()
    expect(readdirSync(runs)).toEqual([])
  })
})
