// The bubblewrap sandbox attacked through its public contract (ExecutionResourceManager + the
// handle's CommandRunner/ProgramRunner), as root the way CI runs it. Each case is data: the
// attack, the exact outcome, and what on the host must be unchanged. Cases that escaped before
// (issue "Hardening") are marked `regression`.
import { spawnSync } from 'node:child_process'
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipReasonFor } from '../support/components'
import { survivorsOf } from '../support/processes'
import type { makeTempDir } from '../support/temp-home'
import { makeEscapeStage } from './escape-stage'
import { ExecutionResourceManager, sandboxIdentity, type CommandResult, type ProgramRunner, type ResourcePolicy } from '../../src/main/core'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { detectCgroupSupport } from '../../src/main/providers/runner/cgroup-limits'
import { BubblewrapProvider } from '../../src/main/providers/bubblewrap/bubblewrap-provider'

const repoRoot = join(__dirname, '..', '..')
const host = await checkBubblewrapHost()
const cgroupCpu = detectCgroupSupport().cpu
const skip = skipReasonFor('bubblewrap', { available: host.ok, reason: host.ok ? '' : host.reason })

type Context = { workspace: string; outside: string }
type Case = {
  id: string
  attack: string
  regression?: boolean
  /** A bash command line run in the workspace. */
  command: (ctx: Context) => string
  policy?: Partial<ResourcePolicy>
  expect: (result: CommandResult, ctx: Context) => void
  /** What must hold on the host afterwards. */
  hostUnchanged?: (ctx: Context) => void | Promise<void>
}

const sysctl = (name: string) => readFileSync(`/proc/sys/${name}`, 'utf8')
const before = { corePattern: sysctl('kernel/core_pattern'), leaseBreak: sysctl('fs/lease-break-time') }
const printsErrno = (errno: string) => (result: CommandResult) => expect(result.stdout.trim()).toBe(`-1 ${errno}`)
/** Python that calls libc through ctypes and prints the return value and the errno name. */
const libc = (call: string) =>
  `python3 -c "import ctypes, errno; libc = ctypes.CDLL(None, use_errno=True); r = ${call}; print(r, errno.errorcode.get(ctypes.get_errno(), 'OK'))"`

export const cases: Case[] = [
  {
    id: 'core-pattern-pipe',
    attack: 'write a pipe handler to /proc/sys/kernel/core_pattern, then crash: host root code execution',
    regression: true,
    command: (ctx) =>
      `printf '#!/bin/sh\\ntouch ${ctx.outside}/pwned\\n' > h.sh; chmod +x h.sh; echo "|${ctx.workspace}/h.sh" > /proc/sys/kernel/core_pattern; sh -c 'kill -SEGV $$'; echo done`,
    expect: (result) => expect(result.stderr).toContain('/proc/sys/kernel/core_pattern: Permission denied'),
    hostUnchanged: (ctx) => {
      expect(sysctl('kernel/core_pattern')).toBe(before.corePattern)
      expect(readdirSync(ctx.outside)).not.toContain('pwned')
    }
  },
  {
    id: 'host-sysctl',
    attack: 'change host-global sysctls (fs.lease-break-time, vm.drop_caches)',
    regression: true,
    command: () => 'echo 1 > /proc/sys/fs/lease-break-time; a=$?; echo 3 > /proc/sys/vm/drop_caches; echo "$a $?"',
    expect: (result) => expect(result.stdout.trim()).toBe('1 1'),
    hostUnchanged: () => expect(sysctl('fs/lease-break-time')).toBe(before.leaseBreak)
  },
  {
    id: 'sysrq-trigger',
    attack: 'write /proc/sysrq-trigger',
    command: () => 'echo h > /proc/sysrq-trigger; echo rc=$?',
    expect: (result) => expect(result.stdout.trim()).toBe('rc=1')
  },
  {
    id: 'setuid-file',
    attack: 'cp /usr/bin/id suid; chmod 4755 suid — a setuid binary any host user could run',
    regression: true,
    command: () => 'cp /usr/bin/id suid && chmod 4755 suid && ./suid -u',
    // Inside, bwrap binds are nosuid: the bit gives nothing.
    expect: (result) => expect(result.stdout.trim()).toBe(String(sandboxIdentity().uid)),
    hostUnchanged: (ctx) => {
      const stat = statSync(join(ctx.workspace, 'suid'))
      expect(stat.uid).toBe(sandboxIdentity().uid)
      if (process.getuid?.() === 0) expect(stat.uid).not.toBe(0)
    }
  },
  {
    id: 'uid-map',
    attack: 'sandboxed code holds the host uid Airlock runs as (root)',
    regression: true,
    command: () => 'touch owned-by; id -u',
    expect: (result) => expect(result.exitCode).toBe(0),
    hostUnchanged: (ctx) => {
      const uid = lstatSync(join(ctx.workspace, 'owned-by')).uid
      expect(uid).toBe(sandboxIdentity().uid)
      if (process.getuid?.() === 0) expect(uid).not.toBe(0)
    }
  },
  {
    id: 'vsock',
    attack: 'open an AF_VSOCK socket with the network off (reaches the host vsock namespace)',
    regression: true,
    command: () => libc('libc.socket(40, 1, 0)'),
    expect: printsErrno('EAFNOSUPPORT')
  },
  {
    id: 'netlink',
    attack: 'open an AF_NETLINK socket',
    command: () => libc('libc.socket(16, 3, 0)'),
    expect: printsErrno('EAFNOSUPPORT')
  },
  {
    id: 'packet-socket',
    attack: 'open an AF_PACKET raw socket',
    command: () => libc('libc.socket(17, 3, 0)'),
    expect: printsErrno('EAFNOSUPPORT')
  },
  {
    id: 'unix-socket-allowed',
    attack: '(control) a unix socket still works',
    command: () => libc('libc.socket(1, 1, 0) > 0'),
    expect: (result) => expect(result.stdout.trim()).toBe('True OK')
  },
  {
    id: 'nested-userns',
    attack: 'create a user namespace (unshare -U) to regain capabilities',
    command: () => libc('libc.unshare(0x10000000)'),
    expect: printsErrno('EPERM')
  },
  {
    id: 'ptrace-init',
    attack: 'ptrace the sandbox init (hangs the sandbox without a filter)',
    command: () => libc('libc.ptrace(16, 1, 0, 0)'),
    expect: printsErrno('EPERM')
  },
  {
    id: 'mount-tmpfs',
    attack: 'mount a filesystem',
    command: () => libc("libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)"),
    expect: printsErrno('EPERM')
  },
  {
    id: 'io-uring',
    attack: 'io_uring_setup',
    command: () => libc('libc.syscall(425, 1, 0)'),
    expect: printsErrno('EPERM')
  },
  {
    id: 'kcore',
    attack: 'read /proc/kcore',
    command: () => 'head -c 16 /proc/kcore | wc -c',
    expect: (result) => expect(result.stdout.trim()).toBe('0')
  },
  {
    id: 'inherited-descriptors',
    attack: "reach host files through descriptors Airlock holds (its own and bwrap init's)",
    regression: true,
    command: () => 'ls /proc/self/fd | tr "\\n" " "; echo; ls -l /proc/1/fd | tail -n +2',
    // The listing itself opens one descriptor (3); bwrap's init keeps stdio and its own eventfd, no file or directory.
    expect: (result) => {
      const [self, ...init] = result.stdout.trim().split('\n')
      expect(self!.trim().split(/\s+/)).toEqual(['0', '1', '2', '3'])
      for (const line of init) expect(line).toMatch(/ -> (socket|pipe|anon_inode|\/dev\/null)/)
    }
  },
  ...(
    [
      ['setsid', 'a setsid background process', (m: string) => `setsid sleep ${m} > /dev/null 2>&1 < /dev/null & echo started`],
      ['double-fork', 'a double-forked orphan', (m: string) => `(sh -c "sleep ${m} &" &) ; sleep 0.2; echo started`],
      ['nohup', 'a nohup background process', (m: string) => `nohup sleep ${m} > /dev/null 2>&1 & echo started`]
    ] as const
  ).map(
    ([id, what, command]): Case => ({
      id: `survivor-${id}`,
      attack: `${what} outlives its call`,
      command: () => command(survivorMarker(id)),
      expect: (result) => expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n' }),
      hostUnchanged: async () => expect(await survivorsOf(survivorMarker(id))).toEqual([])
    })
  ),
  {
    id: 'survivor-term-ignored-at-timeout',
    attack: 'a process that ignores SIGTERM outlives its timeout',
    policy: { timeoutSeconds: 1 },
    command: () => `trap '' TERM; sleep ${survivorMarker('term')} & trap '' TERM; wait`,
    expect: (result) => expect(result).toMatchObject({ timedOut: true, exitCode: 124 }),
    hostUnchanged: async () => expect(await survivorsOf(survivorMarker('term'))).toEqual([])
  },
  {
    id: 'cpu-budget-per-run',
    attack: 'four spinning processes share a 2 CPU-second budget (rlimits are per process)',
    regression: true,
    policy: { limits: { cpuSeconds: 2 }, timeoutSeconds: 60 },
    command: () => 'for i in 1 2 3 4; do (while :; do :; done) & done; wait',
    // Where the host accounts a run's CPU in a cgroup; elsewhere the probe says "per process only".
    expect: (result) => (cgroupCpu ? expect(result).toMatchObject({ limitHit: 'cpu', timedOut: false }) : expect(result.limitHit).toBeUndefined())
  }
]

describe.skipIf(skip !== undefined)(`bubblewrap escape corpus${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  const manager = new ExecutionResourceManager().registerProvider(new BubblewrapProvider())
  const ctx = {} as Context

  const runner = async (policy: Partial<ResourcePolicy> = {}) =>
    (await manager.ensure({ kind: 'code_execution', providerId: 'bubblewrap', policy: { workspaceRoots: [ctx.workspace], timeoutSeconds: 20, ...policy } }))
      .resource as ProgramRunner

  beforeAll(() => {
    const stage = makeEscapeStage('airlock-escape-')
    ;({ dir, workspace: ctx.workspace, outside: ctx.outside } = stage)
  })
  afterAll(async () => {
    await manager.releaseAll()
    dir.remove()
  })

  for (const c of cases) {
    it(`${c.id}: ${c.attack}${c.regression ? ' (escaped before)' : ''}`, async () => {
      const result = await (await runner(c.policy)).run({ command: c.command(ctx) })
      c.expect(result, ctx)
      await c.hostUnchanged?.(ctx)
      expect(readdirSync(ctx.outside)).toEqual(['secret.txt'])
    })
  }

  it('leaked-descriptors: descriptors the Airlock process holds without close-on-exec never reach the program (escaped before)', () => {
    // A separate vitest process holds fd 200 (a host secret) and fd 201 (a host file) open without close-on-exec.
    const secret = openSync(join(ctx.outside, 'secret.txt'), 'r')
    const target = join(dir.path, 'written-through-fd.txt')
    writeFileSync(target, 'original')
    const writable = openSync(target, 'r+')
    const stdio: (number | 'pipe' | 'ignore')[] = ['ignore', 'pipe', 'pipe', ...Array.from({ length: 197 }, () => 'ignore' as const), secret, writable]
    const child = spawnSync(
      join(repoRoot, 'node_modules/.bin/vitest'),
      ['run', '--config', 'test/security/fixtures/vitest.fixtures.config.ts', 'leaked-descriptors'],
      {
        cwd: repoRoot,
        stdio,
        env: { ...process.env, AIRLOCK_FIXTURE_DIR: dir.path },
        timeout: 60_000
      }
    )
    closeSync(secret)
    closeSync(writable)
    const line = child.stdout
      .toString()
      .split('\n')
      .find((l) => l.startsWith('AIRLOCK_FIXTURE_RESULT '))
    expect(line, child.stdout.toString() + child.stderr.toString()).toBeDefined()
    const result = JSON.parse(line!.slice('AIRLOCK_FIXTURE_RESULT '.length)) as CommandResult
    expect(result.stdout).not.toContain('host secret')
    expect(result.stderr).toMatch(/200: Bad file descriptor/)
    expect(result.stdout.trim()).toBe('0 1 2 3')
    expect(readFileSync(target, 'utf8')).toBe('original')
  })

  describe('bind roots of a run (the caller names them; the workspace is hostile)', () => {
    const bindAttempts: { id: string; attack: string; plant: (ctx: Context) => string }[] = [
      {
        id: 'symlink-root',
        attack: 'a writable root that is a symlink the sandbox planted (area_ln -> host dir)',
        plant: (c) => link(c, 'area_ln', c.outside)
      },
      { id: 'symlink-parent', attack: 'a writable root below a symlinked directory', plant: (c) => `${link(c, 'parent_ln', dir.path)}/outside` },
      { id: 'outside-root', attack: 'a writable root outside the workspace altogether', plant: (c) => c.outside },
      { id: 'dotdot-root', attack: 'a writable root that climbs out with ..', plant: (c) => `${c.workspace}/../outside` }
    ]
    for (const attempt of bindAttempts) {
      it(`${attempt.id}: ${attempt.attack} is refused (escaped before)`, async () => {
        const root = attempt.plant(ctx)
        await expect((await runner()).exec({ argv: ['sh', '-c', 'touch pwned'], writableRoots: [root] })).rejects.toThrow(
          /outside this sandbox's workspace|symbolic link/
        )
        expect(readdirSync(ctx.outside)).toEqual(['secret.txt'])
      })
    }

    it('rename-exchange: a directory swapped for a symlink while runs bind it never binds the host directory (escaped before)', async () => {
      const area = join(ctx.workspace, 'area')
      // A racer in a second sandbox swaps `area` (a real directory) with `swap/area` (a symlink out) in a loop.
      const racer = await runner({ timeoutSeconds: 30 })
      const racing = racer.run({
        command: `mkdir -p area swap && ln -sfn ${ctx.outside} swap/area && python3 -c "
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
end = time.time() + 4
while time.time() < end:
    libc.renameat2(-100, b'area', -100, b'swap/area', 2)
"`
      })
      const victim = await runner()
      await new Promise((resolve) => setTimeout(resolve, 300))
      const outcomes = new Set<string>()
      for (let attempt = 0; attempt < 40; attempt++) {
        // bwrap itself refuses a bind whose target moved under it: the dirfd race check, a bind that
        // fails, or the read-only remount of a path that is no longer where it was bound (no command runs).
        const result = await victim.exec({ argv: ['sh', '-c', 'touch raced-$$'], writableRoots: [area] }).catch((error: Error) => error)
        if (result instanceof Error) {
          expect(result.message).toMatch(/outside this sandbox's workspace|outside the workspace|symbolic link|not a directory|does not exist/)
          outcomes.add('refused before the run')
          continue
        }
        outcomes.add(result.exitCode === 0 ? 'ran in the real area' : `refused inside (${result.exitCode})`)
        if (result.exitCode !== 0) expect(result.stderr).toMatch(/bwrap: (Race condition binding dirfd|Can't bind mount|Can't remount readonly)|No such file/)
      }
      await racing
      expect(readdirSync(ctx.outside)).toEqual(['secret.txt'])
      expect(outcomes.size).toBeGreaterThan(0)
    })
  })
})

/** A sleep duration no other process on the host uses, so its survivors can be found by command line. */
function survivorMarker(id: string): string {
  return `${4000 + [...id].reduce((sum, char) => sum + char.charCodeAt(0), 0)}.${process.pid % 1000}`
}

function link(ctx: Context, name: string, target: string): string {
  const path = join(ctx.workspace, name)
  symlinkSync(target, path)
  return path
}
