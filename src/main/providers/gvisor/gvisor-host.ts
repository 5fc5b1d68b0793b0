import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { sandboxIdentity, type CommandResult } from '../../core'
import { findExecutable } from '../provider-helpers'
import { runBounded } from '../runner/bounded-process'
import type { CgroupSupport } from '../runner/cgroup-limits'
import { systemPath } from '../runner/run-limits'
import { gvisorSeccomp } from './gvisor-seccomp'
import { deleteSandbox, prepareGvisorRun, sandboxHostTasks, type GvisorPlaces, type GvisorPrograms } from './gvisor-run'

/** What the host check found: a working runsc (its programs, version, what this build lacks) or the reason and the fix. */
export type GvisorHost =
  | {
      ok: true
      programs: GvisorPrograms
      places: GvisorPlaces
      version: string
      identity: { uid: number; gid: number }
      quirks: string[]
      clone3Unimplemented: boolean
    }
  | { ok: false; reason: string }

const install = 'Install gVisor (Debian/Ubuntu: apt install runsc; elsewhere: https://gvisor.dev/docs/user_guide/install/)'

/** A program from the system directories (never a caller's PATH). */
function systemProgram(name: string): string | undefined {
  return findExecutable(systemPath.split(':').map((dir) => join(dir, name)))
}

/**
 * Checks that gVisor really works here: Airlock runs as root (see below), runsc and the helpers
 * exist, and a trial run takes exactly a run's path (bundle, bind stage, cgroup, runsc). On
 * failure the reason says what blocked it and how to fix it.
 *
 * Decision: gVisor runs only when Airlock is root. Each workspace is bound into the sandbox from
 * the directory Airlock opened (never re-resolved by path, which a sandbox could swap for a link),
 * which takes a mount namespace of Airlock's own before runsc starts; rootless runsc cannot be
 * given one, and its own rootless mode needs host user-namespace setup Airlock does not do.
 * An ordinary user's Airlock says so and falls through to the next provider (bubblewrap).
 */
export async function checkGvisorHost(options: { runscPath?: string; home: string; cgroups?: CgroupSupport }): Promise<GvisorHost> {
  if (process.getuid?.() !== 0)
    return {
      ok: false,
      reason:
        'gvisor needs Airlock to run as root here: each workspace is bound into the sandbox from the directory Airlock opened, in a mount namespace of its own, which rootless runsc cannot be given. Run Airlock as root, or use bubblewrap'
    }
  const runsc = options.runscPath ? findExecutable([options.runscPath]) : systemProgram('runsc')
  if (!runsc) return { ok: false, reason: `runsc not found${options.runscPath ? ` at ${options.runscPath}` : ` in ${systemPath}`}. ${install}` }
  const bwrap = systemProgram('bwrap')
  if (!bwrap) return { ok: false, reason: 'bwrap not found: gvisor binds workspaces with it. Install bubblewrap (Debian/Ubuntu: apt install bubblewrap)' }
  const bash = systemProgram('bash')
  if (!bash) return { ok: false, reason: `bash not found in ${systemPath}` }
  const version = await runBounded({ argv: [runsc, '--version'], cwd: '/', env: { PATH: systemPath }, timeoutMs: 5000, maxOutputBytes: 4096 })
  if (version.exitCode !== 0) return { ok: false, reason: `runsc --version failed (${firstLine(version.stderr) || `exit ${version.exitCode}`}). ${install}` }
  const places = gvisorPlaces(options.home)
  const identity = sandboxIdentity()
  const host = {
    ok: true as const,
    programs: { runsc, bwrap, bash },
    places,
    version: firstLine(version.stdout).replace(/^runsc version\s*/, ''),
    identity: { uid: identity.uid, gid: identity.gid },
    quirks: [] as string[],
    clone3Unimplemented: false
  }
  const trial = await runGvisorOnce(host, options.cgroups, ['/bin/true'])
  if (trial.exitCode !== 0) return { ok: false, reason: explainFailure(trial) }
  // Fail closed: the filter must be in force (a runsc that ignored --oci-seccomp would let everything through).
  const filtered = await runGvisorOnce(host, options.cgroups, ['unshare', '--user', 'true'])
  if (filtered.exitCode === 0 || !/Operation not permitted/.test(filtered.stderr))
    return {
      ok: false,
      reason: `runsc ${host.version} did not apply Airlock's seccomp filter in its sandbox (unshare --user was not refused: ${firstLine(filtered.stderr) || `exit ${filtered.exitCode}`}); gvisor is not used without it`
    }
  // Whether this runsc serves clone3 at all (see gvisorSeccomp): asked with clone3 let through, once.
  const clone3 = await runGvisorOnce(host, options.cgroups, ['python3', '-c', clone3Check], gvisorSeccomp({ clone3Unimplemented: true }))
  host.clone3Unimplemented = clone3.stdout.trim() === 'ENOSYS'
  // Debian's runsc (2022-12-19) refuses statx with AT_NO_AUTOMOUNT, which coreutils' ls and stat use.
  const statx = await runGvisorOnce(host, options.cgroups, ['stat', '-c', '%n', '/'])
  if (statx.exitCode !== 0 && /Invalid argument/.test(statx.stderr))
    host.quirks.push(
      `this runsc (${host.version}) refuses statx(AT_NO_AUTOMOUNT): coreutils ls -l and stat fail inside its sandboxes (Python, git and compilers are unaffected); a gVisor release from 2023 or later fixes it`
    )
  return host
}

/** The root-only folders runsc keeps its state and the runs' bundles in, under Airlock's home. */
export function gvisorPlaces(home: string): GvisorPlaces {
  const base = join(home, 'gvisor')
  const places = { state: join(base, 'state'), bundles: join(base, 'bundles') }
  for (const path of [base, places.state, places.bundles]) {
    mkdirSync(path, { recursive: true, mode: 0o700 })
    const stat = lstatSync(path)
    if (!stat.isDirectory() || stat.uid !== process.getuid?.() || (stat.mode & 0o077) !== 0)
      throw new Error(`${path} must be a directory of Airlock's own with mode 0700`)
  }
  return places
}

/**
 * After a crash: removes the bundles and runsc state a crashed Airlock of this home left, without
 * a host check (start-up must stay quick). A sandbox still running (another Airlock on the same
 * home, or a run not yet reaped) is left alone; its launcher died with that Airlock otherwise, and
 * runsc's sandboxes die with their launcher (`--attached`). Returns what it removed.
 */
export async function sweepSandboxes(home: string, runscPath?: string): Promise<string[]> {
  const bundles = join(home, 'gvisor', 'bundles')
  const runsc = runscPath ? findExecutable([runscPath]) : systemProgram('runsc')
  if (!runsc || !existsSync(bundles)) return []
  const places = { state: join(home, 'gvisor', 'state'), bundles }
  const removed: string[] = []
  for (const id of readdirSync(bundles)) {
    const state = await runBounded({
      argv: [runsc, '--root', places.state, 'state', id],
      cwd: '/',
      env: { PATH: systemPath },
      timeoutMs: 10_000,
      maxOutputBytes: 65_536
    })
    const running = state.exitCode === 0 && /"status":\s*"(running|created)"/.test(state.stdout) && pidAlive(/"pid":\s*(\d+)/.exec(state.stdout)?.[1])
    if (running) continue
    await deleteSandbox({ programs: { runsc }, places }, id)
    rmSync(join(bundles, id), { recursive: true, force: true })
    removed.push(`gvisor sandbox ${id}`)
  }
  return removed
}

function pidAlive(pid: string | undefined): boolean {
  if (!pid || pid === '0') return false
  try {
    process.kill(Number(pid), 0)
    return true
  } catch {
    return false
  }
}

/** Runs one program in a fresh sandbox without a workspace or network, through a run's own path: probes and toolchain checks. */
export async function runGvisorOnce(
  host: Extract<GvisorHost, { ok: true }>,
  cgroups: CgroupSupport | undefined,
  argv: string[],
  seccomp: object = gvisorSeccomp(host)
): Promise<CommandResult> {
  const launch = prepareGvisorRun({ programs: host.programs, places: host.places, pids: sandboxHostTasks(64), memoryBytes: 512 * 1024 * 1024 }, cgroups, {
    argv,
    cwd: '/',
    env: { PATH: systemPath, LANG: 'C.UTF-8' },
    user: host.identity,
    network: 'none',
    binds: [],
    readOnly: [],
    hidden: [],
    processes: 64,
    cpuSeconds: 10,
    seccomp
  })
  const result = await runBounded({ prepared: launch.prepared, cwd: '/', env: {}, timeoutMs: 20_000, maxOutputBytes: 8192 })
  await launch.finish(result.exitCode)
  return result
}

/** Python printing the errno name clone3 answers with no arguments (ENOSYS where the kernel lacks it). */
const clone3Check =
  'import ctypes, errno; libc = ctypes.CDLL(None, use_errno=True); libc.syscall(435, 0, 0); print(errno.errorcode.get(ctypes.get_errno(), "OK"))'

function explainFailure(trial: CommandResult): string {
  const said = trial.stderr.trim().split('\n').at(-1) || `exit ${trial.exitCode}`
  if (/ptrace|operation not permitted/i.test(trial.stderr))
    return `runsc could not start its sandbox: its ptrace platform is blocked here (${said}). In a container, run Airlock with ptrace allowed (e.g. --cap-add SYS_PTRACE and a seccomp profile that permits it)`
  if (/platform/i.test(trial.stderr)) return `runsc does not support this platform (${said}). Fix: check runsc's --platform for this machine`
  return `runsc failed a trial run: ${said}`
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? ''
}
