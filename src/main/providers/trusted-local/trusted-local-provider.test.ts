import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { isAlive, survivorsOf } from '../../../../test/support/processes'
import { makeTempDir } from '../../../../test/support/temp-home'
import { claimWorkspace, type ExecutionResourceError, ExecutionResourceManager, sandboxIdentity, type ProgramRunner } from '../../core'
import { detectCgroupSupport } from '../runner/cgroup-limits'
import { TrustedLocalProvider } from './trusted-local-provider'

let dir: ReturnType<typeof makeTempDir>
let workspace: string
let manager: ExecutionResourceManager
beforeEach(() => {
  dir = makeTempDir('airlock-trusted-local-', { outsideTmp: true })
  workspace = join(dir.path, 'ws')
  claimWorkspace(workspace)
  manager = new ExecutionResourceManager().registerProvider(new TrustedLocalProvider())
})
afterEach(async () => {
  await manager.releaseAll()
  dir.remove()
})

const authorised = { providerId: 'trusted_local', config: { allowUnsafeLocal: true }, policy: { workspaceRoots: [] as string[] } }

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: ExecutionResourceError) => error.code
  )
}

describe('trusted_local provider', () => {
  it('probe reports observed toolchain versions and all four isolation axes false', async () => {
    const probe = await new TrustedLocalProvider().probe({
      requirement: { kind: 'code_execution', requirementId: 'r', scope: 'action_call', resourceKey: 'k', providerId: 'trusted_local' },
      policy: {}
    })
    expect(probe.available).toBe(true)
    expect(probe.capabilities?.isolation).toMatchObject({
      processContained: false,
      hostFilesystemRestricted: false,
      privilegeEscalationBlocked: false,
      syscallsRestricted: false
    })
    const toolchains = probe.capabilities?.toolchains as Record<string, { available: boolean; version?: string }>
    expect(toolchains.python).toMatchObject({ available: true, version: expect.stringMatching(/^3\.\d+/) })
    expect(toolchains.nodejs).toMatchObject({ available: true, version: process.versions.node })
    expect(probe.reason).toMatch(/not authorised/)
  })

  it('refuses to start without the operator authorisation: trusted_local_not_allowed', async () => {
    expect(await codeOf(manager.ensure({ kind: 'bash', providerId: 'trusted_local', policy: { workspaceRoots: [workspace] } }))).toBe(
      'execution_resource.trusted_local_not_allowed'
    )
    expect(
      await codeOf(manager.ensure({ kind: 'bash', providerId: 'trusted_local', config: { allowUnsafeLocal: 'yes' }, policy: { workspaceRoots: [workspace] } }))
    ).toBe('execution_resource.provider_unavailable')
  })

  it('in an ordered list an unauthorised trusted_local is skipped with its reason, never selected and thrown', async () => {
    const local = new ExecutionResourceManager().registerProvider(new TrustedLocalProvider())
    const error = (await local
      .ensure({ kind: 'bash', providerCandidates: ['trusted_local'], policy: { workspaceRoots: [workspace] } })
      .catch((e: unknown) => e)) as ExecutionResourceError
    expect(error.code).toBe('execution_resource.provider_unavailable')
    expect(error.data.probes).toEqual([
      expect.objectContaining({ providerId: 'trusted_local', available: false, reason: expect.stringMatching(/not authorised/) })
    ])
    const unsnapshotted = (await local
      .ensure({
        kind: 'code_execution',
        providerCandidates: [{ providerId: 'trusted_local', config: { allowUnsafeLocal: true } }],
        policy: { workspaceRoots: [workspace] }
      })
      .catch((e: unknown) => e)) as ExecutionResourceError
    expect(unsnapshotted.code).toBe('execution_resource.provider_unavailable')
    expect(JSON.stringify(unsnapshotted.data.probes)).toMatch(/snapshot/)
  })

  it('runs code only on a snapshot grant: trusted_local_snapshot_required otherwise', async () => {
    const requirement = { ...authorised, kind: 'code_execution', policy: { workspaceRoots: [workspace] } }
    expect(await codeOf(manager.ensure(requirement))).toBe('execution_resource.trusted_local_snapshot_required')
    expect(await codeOf(manager.ensure({ ...requirement, workspaceAccess: { mode: 'read_write' } }))).toBe('execution_resource.trusted_local_snapshot_required')
    const handle = await manager.ensure({ ...requirement, workspaceAccess: { mode: 'snapshot' } })
    const result = await (handle.resource as ProgramRunner).exec({ argv: ['python3', '-c', 'import os; print(os.getcwd())'] })
    expect(result).toMatchObject({ stdout: `${workspace}\n`, exitCode: 0 })
  })

  it('can never satisfy required isolation', async () => {
    const requirement = { ...authorised, kind: 'code_execution', workspaceAccess: { mode: 'snapshot' as const }, policy: { workspaceRoots: [workspace] } }
    expect(await codeOf(manager.ensure({ ...requirement, requiredCapabilities: { isolation: { processContained: true } } }))).toBe(
      'execution_resource.provider_unavailable'
    )
  })

  it('cancellation kills the process group: the pid no longer exists', async () => {
    const handle = await manager.ensure({ ...authorised, kind: 'bash', policy: { workspaceRoots: [workspace] } })
    const controller = new AbortController()
    const running = (handle.resource as ProgramRunner).run({ command: 'echo $$; sleep 30 & echo $!; wait', signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, 300))
    controller.abort()
    const result = await running
    const pids = result.stdout.trim().split('\n').map(Number)
    expect(result.cancelled).toBe(true)
    expect(pids).toHaveLength(2)
    // SIGKILL to the group is delivered asynchronously: on a loaded machine the background sleep
    // can still be on its way out when the run resolves. It must be gone soon (it would sleep 30 s).
    await vi.waitFor(
      () => {
        for (const pid of pids) expect(isAlive(pid)).toBe(false)
      },
      { timeout: 5000, interval: 50 }
    )
  })

  it('never runs as root: the run holds the sandbox identity (an unprivileged uid when Airlock is root)', async () => {
    const handle = await manager.ensure({ ...authorised, kind: 'bash', policy: { workspaceRoots: [workspace] } })
    const result = await (handle.resource as ProgramRunner).run({ command: 'id -u; touch made; ls /proc/self/fd | tr "\\n" " "' })
    const [uid, fds] = result.stdout.trim().split('\n')
    expect(uid).toBe(String(sandboxIdentity().uid))
    if (process.getuid?.() === 0) expect(uid).not.toBe('0')
    expect(fds!.trim()).toBe('0 1 2 3')
  })

  it('nothing it starts outlives the run where the host has cgroups, not even a setsid child', async () => {
    const handle = await manager.ensure({ ...authorised, kind: 'bash', policy: { workspaceRoots: [workspace] } })
    const marker = `${3000 + (process.pid % 1000)}.5`
    const result = await (handle.resource as ProgramRunner).run({ command: `setsid sleep ${marker} > /dev/null 2>&1 < /dev/null & sleep 0.3; echo started` })
    expect(result.stdout).toBe('started\n')
    const survivors = await survivorsOf(marker)
    if (detectCgroupSupport().pids || detectCgroupSupport().memory) expect(survivors).toEqual([])
    else expect(survivors.length).toBe(1) // without cgroups, a setsid child leaves the group: said in the probe's limits
    for (const pid of survivors) process.kill(pid, 'SIGKILL')
  })
})
