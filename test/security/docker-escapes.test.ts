// The docker provider attacked through its public contract (ExecutionResourceManager + the handle's
// CommandRunner/ProgramRunner), as root the way CI runs it. The cases are data
// (docker-escape-cases.ts); after every case the host is checked: nothing written outside the
// workspace, /proc/sys unchanged, no root-owned setuid file and nothing owned by another uid in
// the workspace, and no process of the run left in the container.
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import type { makeTempDir } from '../support/temp-home'
import { makeEscapeStage } from './escape-stage'
import { claimWorkspace, ExecutionResourceManager, sandboxIdentity, type ProgramRunner, type ResourceHandle } from '../../src/main/core'
import { checkEngine, createDockerClient } from '../../src/main/providers/docker/docker-engine'
import { DockerProvider } from '../../src/main/providers/docker/docker-provider'
import { dockerEscapeCases, hostBefore, type DockerEscapeCase, type DockerEscapeContext } from './docker-escape-cases'

const docker = createDockerClient()
const engine = await checkEngine(docker)
const skip = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })
const identity = sandboxIdentity()
const home = '/tmp/airlock-docker-escapes-home'

describe.skipIf(skip !== undefined)(`docker escape corpus${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  const manager = new ExecutionResourceManager().registerProvider(new DockerProvider({ home, docker }))
  const ctx = {} as DockerEscapeContext
  const requirement = () => ({
    kind: 'code_execution',
    providerId: 'docker',
    scope: 'session' as const,
    ownerId: 'escapes',
    requiredCapabilities: { languages: ['python'] },
    policy: { workspaceRoots: [ctx.workspace], timeoutSeconds: 20, limits: { cpuSeconds: 3 } }
  })

  beforeAll(async () => {
    await ensureTestImages(docker)
    const stage = makeEscapeStage('airlock-docker-escape-')
    ;({ dir, workspace: ctx.workspace, outside: ctx.outside } = stage)
    const stat = lstatSync(ctx.outside)
    ctx.outsideOwner = { uid: stat.uid, gid: stat.gid }
    // The session holds its container, as an agent's session does; each case adds a reference.
    await manager.ensure(requirement())
  }, 600_000)
  afterAll(async () => {
    await manager.releaseAll()
    dir?.remove()
  })

  for (const c of dockerEscapeCases) {
    it(`${c.id}: ${c.attack}${c.regression ? ' (escaped before)' : ''}`, async () => {
      // Reuse health-checks the session's container: a case that broke it gets a fresh one, not a cascade.
      const handle = await manager.ensure(requirement())
      const strangersBefore = strangers(ctx.workspace)
      const leftoversBefore = await leftoverProcesses(handle)
      try {
        await attack(c, handle, strangersBefore, leftoversBefore)
      } finally {
        await manager.release(handle)
      }
    })
  }

  async function attack(c: DockerEscapeCase, handle: ResourceHandle, strangersBefore: string[], leftoversBefore: string[]): Promise<void> {
    const runner = handle.resource as ProgramRunner
    if (c.prepare) await runner.run({ command: c.prepare(ctx), cwd: ctx.workspace })
    const command = c.command(ctx)
    const outcome = c.writableRoots
      ? await runner
          .exec({ argv: ['bash', '-c', command], writableRoots: c.writableRoots(ctx), cwd: ctx.workspace, timeoutSeconds: c.timeoutSeconds })
          .catch(asOutcome)
      : await runner.run({ command, cwd: ctx.workspace, timeoutSeconds: c.timeoutSeconds }).catch(asOutcome)
    c.expect(outcome, ctx)
    // Right after the call returned: nothing of the run is left in the container.
    expect(await leftoverProcesses(handle)).toEqual(leftoversBefore)
    c.hostUnchanged?.(ctx)
    expect(readdirSync(ctx.outside)).toEqual(['secret.txt'])
    expect(lstatSync(ctx.outside)).toMatchObject(ctx.outsideOwner)
    expect(readFileSync('/proc/sys/kernel/core_pattern', 'utf8')).toBe(hostBefore.corePattern)
    expect(strangers(ctx.workspace)).toEqual(strangersBefore)
  }

  it('--mount extra args are applied as mounts and reported as weakening the host filesystem axis (required isolation refuses them)', async () => {
    const shared = join(dir.path, 'shared')
    mkdirSync(shared)
    writeFileSync(join(shared, 'note'), 'hello')
    const requirement = (isolation: boolean) => ({
      kind: 'code_execution',
      providerId: 'docker',
      requiredCapabilities: { languages: ['python'], ...(isolation ? { isolation: { hostFilesystemRestricted: true } } : {}) },
      config: { extraArgs: ['--mount', `type=bind,source=${shared},target=/shared,readonly`] },
      policy: { workspaceRoots: [ctx.workspace], timeoutSeconds: 20 }
    })
    const weakened = await manager.ensure(requirement(false))
    expect(weakened.meta.isolation).toMatchObject({ hostFilesystemRestricted: false, processContained: true, syscallsRestricted: true })
    const result = await (weakened.resource as ProgramRunner).run({ command: 'cat /shared/note; echo; echo x > /shared/new; echo rc=$?' })
    expect(result.stdout).toBe('hello\nrc=1\n')
    expect(result.stderr).toMatch(/Read-only file system/)
    await manager.release(weakened)
    await expect(manager.ensure(requirement(true))).rejects.toMatchObject({ code: 'execution_resource.provider_unavailable' })
  })

  it('bind-root-swapped: a workspace root replaced by a symlink to a host directory between the check and the bind is never used (escaped before)', async () => {
    const { openMountedRoots, closeRoots } = await import('../../src/main/providers/docker/mounted-roots')
    const { startSessionContainer } = await import('../../src/main/providers/docker/container-setup')
    const { defaultLimits } = await import('../../src/main/providers/docker/container-spec')
    const victim = join(dir.path, 'victim')
    claimWorkspace(victim)
    const roots = openMountedRoots([victim], identity)
    // The swap a hostile sandbox of the same agent could make after the check: the path now names the outside directory.
    renameSync(victim, `${victim}.moved`)
    symlinkSync(ctx.outside, victim)
    const before = await docker.listContainers({ all: true, filters: { label: ['airlock.test=bind-swap'] } })
    await expect(
      startSessionContainer(docker, {
        image: 'airlock/python:latest',
        labels: { 'airlock.test': 'bind-swap' },
        roots,
        identity,
        limits: defaultLimits,
        network: 'none',
        effect: { hostConfig: {}, weakened: {} }
      })
    ).rejects.toMatchObject({ code: 'docker.mount_mismatch' })
    closeRoots(roots)
    expect(await docker.listContainers({ all: true, filters: { label: ['airlock.test=bind-swap'] } })).toHaveLength(before.length)
    expect(readdirSync(ctx.outside)).toEqual(['secret.txt'])
  })
})

function asOutcome(error: { code?: string; message: string }) {
  return { error: { code: error.code, message: error.message } }
}

/** Processes in the container other than its init and the `sleep infinity` that keeps it up. */
async function leftoverProcesses(handle: ResourceHandle): Promise<string[]> {
  const top = (await docker
    .getContainer(handle.meta.containerId as string)
    .top({ ps_args: '-eo uid,pid,args' })
    .catch(() => ({ Titles: [], Processes: [] }))) as { Titles: string[]; Processes: string[][] }
  const args = top.Titles.indexOf('COMMAND')
  return top.Processes.map((row) => row.join(' ')).filter((_, index) => !/^(\/sbin\/docker-init -- )?sleep infinity$/.test(top.Processes[index]![args]!))
}

/** Entries of the workspace (walked without following links) owned by another uid than the sandbox's, or setuid and root's. */
function strangers(root: string): string[] {
  const found: string[] = []
  for (const name of readdirSync(root)) {
    const path = join(root, name)
    const stat = lstatSync(path)
    if (stat.uid !== identity.uid || (stat.uid === 0 && (stat.mode & 0o4000) !== 0))
      found.push(`${path} (uid ${stat.uid}, mode ${(stat.mode & 0o7777).toString(8)})`)
    if (stat.isDirectory()) found.push(...strangers(path))
  }
  return found
}
