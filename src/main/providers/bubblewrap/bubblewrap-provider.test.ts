import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipReasonFor } from '../../../../test/support/components'
import { survivorsOf } from '../../../../test/support/processes'
import { makeTempDir, sandboxTestBase } from '../../../../test/support/temp-home'
import { claimWorkspace, ExecutionResourceManager, type CommandResult, type ProgramRunner, type ResourcePolicy } from '../../core'
import { detectCgroupSupport } from '../runner/cgroup-limits'
import { checkBubblewrapHost } from './bubblewrap-probe'
import { BubblewrapProvider } from './bubblewrap-provider'

const host = await checkBubblewrapHost()
const cgroups = detectCgroupSupport()
/** Where the test workspaces live under $HOME (tests run as a non-root user), $HOME's path exists in the sandbox. */
const workspaceUnderHome = sandboxTestBase.startsWith(`${homedir()}/`)
const skip = skipReasonFor('bubblewrap', { available: host.ok, reason: host.ok ? '' : host.reason })

let dir: ReturnType<typeof makeTempDir>
let workspace: string
let neighbour: string
const provider = new BubblewrapProvider()
const manager = new ExecutionResourceManager().registerProvider(provider)

async function sandbox(policy: Partial<ResourcePolicy> = {}): Promise<ProgramRunner> {
  const handle = await manager.ensure({
    kind: 'code_execution',
    providerId: 'bubblewrap',
    policy: { workspaceRoots: [workspace], timeoutSeconds: 20, ...policy }
  })
  return handle.resource as ProgramRunner
}

const python = (runner: ProgramRunner, code: string, extra: { timeoutSeconds?: number } = {}): Promise<CommandResult> =>
  runner.exec({ argv: ['python3', '-c', code], ...extra })

/** Python that calls a libc function through ctypes and prints the errno name. */
const libcCall = (call: string) =>
  `import ctypes, errno, os\nlibc = ctypes.CDLL(None, use_errno=True)\nr = ${call}\nprint(r, errno.errorcode.get(ctypes.get_errno(), 'OK'))`

describe.skipIf(skip !== undefined)(`bubblewrap provider${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    dir = makeTempDir('airlock-bwrap-', { outsideTmp: true })
    workspace = join(dir.path, 'agent-a')
    neighbour = join(dir.path, 'agent-b')
    claimWorkspace(workspace)
    claimWorkspace(neighbour)
    writeFileSync(join(neighbour, 'private.txt'), 'agent b private data')
    writeFileSync(join(dir.path, 'host-file.txt'), 'host original')
    symlinkSync(join(dir.path, 'host-file.txt'), join(workspace, 'link-to-host-file'))
    symlinkSync(neighbour, join(workspace, 'link-to-neighbour'))
  })
  afterAll(async () => {
    await manager.releaseAll()
    dir.remove()
  })

  it('probe reports the axes it enforces, observed toolchains and how limits are enforced', async () => {
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
          mechanism: 'bubblewrap',
          networkMode: 'none'
        },
        toolchains: { python: { available: true } }
      }
    })
    expect(probe.capabilities?.limits).toEqual({
      pids: cgroups.pids ? 'cgroup' : 'not enforced',
      memory: cgroups.memory ? 'cgroup' : 'rlimit (address space)',
      cpuSeconds: cgroups.cpu ? 'cgroup (per run)' : 'rlimit (per process only, not per run)'
    })
  })

  it('passes every argument through to the program exactly (quotes, newlines, $, backticks)', async () => {
    const words = ['a b', "it's", 'two\nlines', '$HOME', '`id`', '', "'\"'", '\\n']
    const result = await (await sandbox()).exec({ argv: ['python3', '-c', 'import sys, json; print(json.dumps(sys.argv[1:]))', ...words] })
    expect(JSON.parse(result.stdout)).toEqual(words)
  })

  it('writes inside the grant succeed and land in the workspace', async () => {
    const runner = await sandbox()
    const result = await python(runner, "open('made-inside.txt','w').write('hello')")
    expect(result.exitCode).toBe(0)
    expect(readFileSync(join(workspace, 'made-inside.txt'), 'utf8')).toBe('hello')
  })

  it('an extra writable root (an execution area) is writable for that run only; one outside the workspace is refused', async () => {
    const area = join(workspace, 'area')
    claimWorkspace(area)
    const runner = await sandbox()
    const readOnlyRunner = (
      await manager.ensure({ kind: 'code_execution', providerId: 'bubblewrap', policy: { workspaceRoots: [join(workspace, 'area')], timeoutSeconds: 20 } })
    ).resource as ProgramRunner
    expect((await python(readOnlyRunner, `open('${workspace}/out.txt','w').write('x')`)).exitCode).not.toBe(0)
    const result = await runner.exec({ argv: ['python3', '-c', "open('out.txt','w').write('x')"], writableRoots: [area] })
    expect(result.exitCode).toBe(0)
    expect(existsSync(join(area, 'out.txt'))).toBe(true)
    const outside = join(dir.path, 'outside-area')
    mkdirSync(outside)
    await expect(runner.exec({ argv: ['true'], writableRoots: [outside] })).rejects.toThrow(/outside this sandbox's workspace/)
  })

  // Each target fails its own way: read-only binds and root refuse writes; what is not bound does not exist.
  const escapes: [string, () => string, string][] = [
    ['/etc', () => "open('/etc/airlock-escape','w').write('x')", 'Read-only file system'],
    // The host's $HOME is not in the sandbox, unless the workspace lives under it (then it is read-only there).
    [
      '$HOME of the host',
      () => `open('${homedir()}/airlock-escape','w').write('x')`,
      workspaceUnderHome ? 'Read-only file system' : 'No such file or directory'
    ],
    ['another workspace', () => `open('${neighbour}/x','w').write('x')`, 'No such file or directory'],
    ['a symlink pointing outside', () => "open('link-to-host-file','w').write('overwritten')", 'Read-only file system'],
    ['a symlinked directory of another workspace', () => "open('link-to-neighbour/x','w').write('x')", 'No such file or directory'],
    ['/usr', () => "open('/usr/airlock-escape','w').write('x')", 'Read-only file system']
  ]
  for (const [target, code, refusal] of escapes) {
    it(`a write to ${target} fails (${refusal}) and the host is unchanged`, async () => {
      const runner = await sandbox()
      const result = await python(runner, code())
      expect(result.exitCode).toBe(1)
      expect(result.stderr).toContain(refusal)
      expect(readFileSync(join(dir.path, 'host-file.txt'), 'utf8')).toBe('host original')
      expect(existsSync('/etc/airlock-escape')).toBe(false)
      expect(existsSync(join(homedir(), 'airlock-escape'))).toBe(false)
      expect(existsSync('/usr/airlock-escape')).toBe(false)
      expect(readdirSync(neighbour)).toEqual(['private.txt'])
    })
  }

  it("cannot read another agent's workspace", async () => {
    const result = await python(await sandbox(), `print(open('${neighbour}/private.txt').read())`)
    expect(result.exitCode).not.toBe(0)
    expect(result.stdout).not.toContain('agent b private data')
  })

  it('ptrace, unshare and mount fail with EPERM (seccomp)', async () => {
    const runner = await sandbox()
    expect((await python(runner, libcCall('libc.ptrace(16, 1, 0, 0)'))).stdout.trim()).toBe('-1 EPERM')
    expect((await python(runner, libcCall('libc.unshare(0x10000000)'))).stdout.trim()).toBe('-1 EPERM')
    expect((await python(runner, libcCall("libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)"))).stdout.trim()).toBe('-1 EPERM')
    expect((await python(runner, libcCall('libc.syscall(321, 0, 0, 0)'))).stdout.trim()).toBe('-1 EPERM')
  })

  describe('network', () => {
    let server: Server
    let port: number
    beforeAll(async () => {
      server = createServer((socket) => socket.end('hello from the host\n'))
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      port = (server.address() as { port: number }).port
    })
    afterAll(() => server.close())
    const connect = () => `import socket\ns = socket.create_connection(('127.0.0.1', ${port}), timeout=3)\nprint(s.recv(100).decode())`

    it('a TCP connect to a listener on 127.0.0.1 fails when network is off', async () => {
      const result = await python(await sandbox({ networkMode: 'none' }), connect())
      expect(result.exitCode).not.toBe(0)
      // The sandbox's own network namespace has only its own loopback: nothing listens there.
      expect(result.stderr).toContain('ConnectionRefusedError')
    })

    it('the same connect works when the policy allows network (so the test can tell)', async () => {
      const result = await python(await sandbox({ networkMode: 'full' }), connect())
      expect(result.stdout).toContain('hello from the host')
    })
  })

  it('a fork bomb ends with a clear error and the host is unaffected', async () => {
    const runner = await sandbox({ limits: { pids: 32, cpuSeconds: 10 }, timeoutSeconds: 4 })
    const result = await runner.run({ command: 'bomb() { bomb | bomb & }; bomb; sleep 2' })
    if (cgroups.pids) {
      expect(result.limitHit).toBe('pids')
      expect(result.stderr).toContain('airlock: ended by the pids limit')
    } else {
      // Without a pids cgroup the probe says "not enforced"; the deadline still ends the run.
      expect(result.timedOut).toBe(true)
    }
    expect(execFileSync('echo', ['host still forks']).toString()).toBe('host still forks\n')
  })

  it('a memory hog ends with a clear error', async () => {
    const runner = await sandbox({ limits: { memoryMb: 128 } })
    const result = await python(runner, "x = ' ' * (1024 ** 3)\nprint('allocated')")
    expect(result.exitCode).not.toBe(0)
    expect(result.stdout).not.toContain('allocated')
    if (cgroups.memory) expect(result.limitHit).toBe('memory')
    else expect(result.stderr).toContain('MemoryError')
  })

  it('a CPU spin past the CPU-seconds limit is stopped', async () => {
    const runner = await sandbox({ limits: { cpuSeconds: 1 }, timeoutSeconds: 20 })
    const result = await python(runner, 'while True: pass')
    expect(result.timedOut).toBe(false)
    expect(result.limitHit).toBe('cpu')
  })

  it('a background sleep started by the command is gone after the call', async () => {
    const marker = `${Date.now() % 100000}.25`
    const runner = await sandbox()
    const result = await runner.run({ command: `sleep ${marker} & echo started` })
    expect(result.stdout).toBe('started\n')
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(await survivorsOf(marker)).toEqual([])
  })

  it("print('x'*10**6) with a 128-byte cap returns at most 128 bytes and truncated: true", async () => {
    const runner = await sandbox({ maxOutputBytes: 128 })
    const result = await python(runner, "print('x'*10**6)")
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(128)
    expect(result.stdoutTruncated).toBe(true)
  })

  it('a timeout ends the sandbox with exit code 124', async () => {
    const result = await python(await sandbox(), 'import time; time.sleep(30)', { timeoutSeconds: 0.5 })
    expect(result).toMatchObject({ timedOut: true, exitCode: 124 })
  })

  it('a missing bwrap makes the probe unavailable with the reason and the fix, never a silent fallback', async () => {
    const local = new ExecutionResourceManager().registerProvider(new BubblewrapProvider())
    const error = await local
      .ensure({ kind: 'code_execution', providerId: 'bubblewrap', config: { bwrapPath: '/nonexistent/bwrap' }, policy: { workspaceRoots: [workspace] } })
      .catch((e: Error & { code?: string }) => e)
    expect((error as { code: string }).code).toBe('execution_resource.provider_unavailable')
    expect((error as Error).message).toMatch(/bwrap not found at \/nonexistent\/bwrap.*apt install bubblewrap/)
    expect(local.list()).toEqual([])
  })

  it('invalid config is refused by its schema with the field named', async () => {
    const probe = await provider.probe({
      requirement: { kind: 'code_execution', requirementId: 'r', scope: 'action_call', resourceKey: 'k', config: { readOnlyBinds: ['relative/path'] } },
      policy: { workspaceRoots: [workspace] }
    })
    expect(probe).toMatchObject({ available: false, reason: expect.stringMatching(/readOnlyBinds\.0 must be absolute/) })
  })
})
