import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipReasonFor } from '../../../../test/support/components'
import { makeTempDir } from '../../../../test/support/temp-home'
import { claimWorkspace, ExecutionResourceManager, sandboxIdentity, type ProgramRunner, type ResourcePolicy } from '../../core'
import { detectCgroupSupport } from '../runner/cgroup-limits'
import { checkGvisorHost } from './gvisor-host'
import { GvisorProvider } from './gvisor-provider'

const home = makeTempDir('airlock-gvisor-home-', { outsideTmp: true })
const cgroups = detectCgroupSupport()
const host = await checkGvisorHost({ home: home.path, cgroups })
const skip = skipReasonFor('gVisor (runsc)', { available: host.ok, reason: host.ok ? '' : host.reason })

let dir: ReturnType<typeof makeTempDir>
let workspace: string
let neighbour: string
const provider = new GvisorProvider({ home: home.path })
const manager = new ExecutionResourceManager().registerProvider(provider)

async function sandbox(policy: Partial<ResourcePolicy> = {}): Promise<ProgramRunner> {
  const handle = await manager.ensure({ kind: 'code_execution', providerId: 'gvisor', policy: { workspaceRoots: [workspace], timeoutSeconds: 20, ...policy } })
  return handle.resource as ProgramRunner
}

describe.skipIf(skip !== undefined)(`gvisor provider${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    dir = makeTempDir('airlock-gvisor-', { outsideTmp: true })
    workspace = join(dir.path, 'agent-a')
    neighbour = join(dir.path, 'agent-b')
    claimWorkspace(workspace)
    claimWorkspace(neighbour)
    writeFileSync(join(neighbour, 'private.txt'), 'agent b private data')
    symlinkSync(neighbour, join(workspace, 'link-to-neighbour'))
  })
  afterAll(async () => {
    await manager.releaseAll()
    dir.remove()
    home.remove()
  })

  it('probe claims all four axes behind a separate kernel, with observed toolchains', async () => {
    const probe = await provider.probe({
      requirement: { kind: 'code_execution', requirementId: 'r', scope: 'action_call', resourceKey: 'k' },
      policy: { workspaceRoots: [workspace] }
    })
    expect(probe).toMatchObject({
      available: true,
      capabilities: {
        isolation: {
          processContained: true,
          hostFilesystemRestricted: true,
          privilegeEscalationBlocked: true,
          syscallsRestricted: true,
          mechanism: 'gvisor',
          kernel: 'separate'
        },
        languages: expect.arrayContaining(['python', 'bash'])
      }
    })
  })

  it('runs in a kernel of its own as the sandbox uid, writing only the workspace', async () => {
    const runner = await sandbox()
    const result = await runner.exec({
      argv: ['bash', '-c', 'uname -v; id -u; echo made > out.txt; touch /usr/x 2>&1; cat link-to-neighbour/private.txt 2>&1; echo done'],
      timeoutSeconds: 20
    })
    expect(result.exitCode, result.stderr).toBe(0)
    const lines = result.stdout.trim().split('\n')
    // gVisor's Sentry answers uname with its own version string, not the host kernel's.
    expect(lines[0]).not.toBe(execFileSync('uname', ['-v'], { encoding: 'utf8' }).trim())
    expect(lines[1]).toBe(String(sandboxIdentity().uid))
    expect(result.stdout).toMatch(/Read-only file system|Permission denied/)
    expect(result.stdout).not.toContain('agent b private data')
    expect(statSync(join(workspace, 'out.txt')).uid).toBe(sandboxIdentity().uid)
  })

  it('gives every run a fresh sandbox: nothing of an earlier run survives but the workspace', async () => {
    const runner = await sandbox()
    await runner.exec({ argv: ['bash', '-c', 'echo left > /tmp/left; (sleep 60 &) ; echo ok'] })
    const second = await runner.exec({ argv: ['bash', '-c', 'ls /tmp/left 2>/dev/null || echo gone; ps -e -o comm= | grep -c sleep || true'] })
    expect(second.stdout.trim().split('\n')).toEqual(['gone', '0'])
  })

  it('keeps one sandbox booted ahead and gives a run on it exactly its program, environment, arguments and input', async () => {
    const runner = await sandbox()
    await runner.exec({ argv: ['true'] })
    // The spare boots while (and after) that run goes: one bundle waits.
    if (host.ok) await expect.poll(() => readdirSync(host.places.bundles).length, { timeout: 10_000 }).toBe(1)
    const tricky = `it's\n"quoted" $HOME \\ ;`
    const result = await runner.exec({
      argv: ['python3', '-c', 'import json, os, sys; print(json.dumps([dict(os.environ), sys.argv[1], os.getcwd(), sys.stdin.read()]))', tricky],
      env: { EXTRA: 'x=y' },
      stdin: 'from stdin'
    })
    expect(result.exitCode, result.stderr).toBe(0)
    const [env, argument, cwd, input] = JSON.parse(result.stdout) as [Record<string, string>, string, string, string]
    expect(env).toMatchObject({ EXTRA: 'x=y', HOME: workspace, LANG: 'C.UTF-8', TERM: 'dumb', TMPDIR: '/tmp' })
    expect(
      Object.keys(env)
        .filter((name) => !name.startsWith('GIT_CONFIG_'))
        .sort()
    ).toEqual(['EXTRA', 'HOME', 'LANG', 'PATH', 'TERM', 'TMPDIR'])
    expect([argument, cwd, input]).toEqual([tricky, workspace, 'from stdin'])
  })

  it('passes stdin, exit codes and cwd through', async () => {
    const runner = await sandbox()
    const result = await runner.exec({ argv: ['python3', '-c', 'import sys, os; print(sys.stdin.read().upper(), os.getcwd()); sys.exit(3)'], stdin: 'hello' })
    expect(result).toMatchObject({ exitCode: 3, stdout: `HELLO ${workspace}\n` })
  })

  it('ends a run at its deadline and leaves no sandbox behind', async () => {
    const runner = await sandbox()
    const result = await runner.exec({ argv: ['sleep', '30'], timeoutSeconds: 1 })
    expect(result).toMatchObject({ timedOut: true, exitCode: 124 })
    // runsc's state and bundles are removed just after the result; only the waiting spare's remains.
    if (host.ok) await expect.poll(() => readdirSync(host.places.bundles).length, { timeout: 10_000 }).toBeLessThanOrEqual(1)
  })

  it('holds a memory hog to the run budget', async () => {
    const runner = await sandbox({ limits: { memoryMb: 128 } })
    const result = await runner.exec({ argv: ['python3', '-c', 'b = bytearray(1024 * 1024 * 1024); print(len(b))'] })
    expect(result.exitCode).not.toBe(0)
    expect(result.stdout).toBe('')
    if (cgroups.memory) expect(result.limitHit).toBe('memory')
  })

  it('holds a CPU spinner to the run budget where the host accounts CPU', async () => {
    const runner = await sandbox({ limits: { cpuSeconds: 1 } })
    const result = await runner.exec({ argv: ['python3', '-c', 'while True: pass'], timeoutSeconds: 15 })
    expect(result.timedOut).toBe(cgroups.cpu ? false : true)
    if (cgroups.cpu) expect(result.limitHit).toBe('cpu')
  })

  it('holds the number of processes to the policy inside its kernel', async () => {
    const runner = await sandbox({ limits: { pids: 16 } })
    const forks = [
      'import os, time',
      'n = 0',
      'for _ in range(40):',
      '    try:',
      '        if os.fork() == 0:',
      '            time.sleep(3); os._exit(0)',
      '        n += 1',
      '    except BlockingIOError:',
      '        break',
      'print(n)'
    ].join('\n')
    const result = await runner.exec({ argv: ['python3', '-c', forks] })
    expect(result.limitHit, result.stderr).toBeUndefined()
    // The python process itself is one of the 16.
    expect(result.stdout.trim()).toBe('15')
  })

  it("after a crash removes the sandboxes' leftovers of its home, never a live Airlock's waiting sandbox", async () => {
    // Released handles leave nothing (their spares and their runs' state are removed before release ends).
    await manager.releaseAll()
    if (!host.ok) return
    expect(readdirSync(host.places.bundles)).toEqual([])
    const runner = await sandbox()
    await runner.exec({ argv: ['true'] })
    await expect.poll(() => readdirSync(host.places.bundles).length, { timeout: 10_000 }).toBe(1)
    const live = readdirSync(host.places.bundles)[0]!
    // What a crash leaves: a bundle whose sandbox is gone.
    mkdirSync(join(host.places.bundles, 'airlock-crashed'))
    const restarted = new GvisorProvider({ home: home.path })
    expect(await restarted.recover()).toEqual(['gvisor sandbox airlock-crashed'])
    expect(readdirSync(host.places.bundles)).toEqual([live])
    // The live spare still serves its handle.
    expect((await runner.exec({ argv: ['bash', '-c', 'echo served'] })).stdout).toBe('served\n')
  })

  it('says why a proxy policy cannot run here', async () => {
    const probe = await provider.probe({
      requirement: { kind: 'code_execution', requirementId: 'r', scope: 'action_call', resourceKey: 'k' },
      policy: { workspaceRoots: [workspace], networkMode: 'proxy' }
    })
    expect(probe).toMatchObject({ available: false, reason: expect.stringContaining('egress proxy') })
    expect(existsSync(workspace)).toBe(true)
  })
})
