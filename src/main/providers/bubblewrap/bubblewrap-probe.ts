import { readFileSync } from 'node:fs'
import { findExecutable } from '../provider-helpers'
import { join } from 'node:path'
import { sandboxIdentity, type CommandResult } from '../../core'
import { runBounded } from '../runner/bounded-process'
import { detectCgroupSupport, type CgroupSupport } from '../runner/cgroup-limits'
import { systemPath } from '../runner/run-limits'
import type { LauncherPrograms } from './sandbox-command'
import { buildSeccompFilter, seccompArch } from './seccomp-filter'
import { spawnLauncher, type LauncherSpec } from './warm-sandbox'

/** What the host check found: a working bwrap (its programs, version) or the reason and the fix. */
export type BubblewrapHost =
  | { ok: true; bwrap: string; version: string; filter: Buffer; programs: LauncherPrograms; identity: { uid: number; gid: number; dedicated: boolean } }
  | { ok: false; reason: string }

/** A program from the system directories (never a caller's PATH). */
function systemProgram(name: string): string | undefined {
  return findExecutable(systemPath.split(':').map((dir) => join(dir, name)))
}

/** Finds bwrap: the configured path, else the system directories. */
export function findBwrap(configured?: string): string | undefined {
  return configured ? findExecutable([configured]) : systemProgram('bwrap')
}

/** The launch of a run with these limits, as the sandbox identity: what a probe tries and a run uses. */
export function launcherSpec(host: Extract<BubblewrapHost, { ok: true }>, limits: Omit<LauncherSpec, 'programs' | 'filter' | 'identity'>): LauncherSpec {
  return { programs: host.programs, filter: host.filter, identity: host.identity.dedicated ? host.identity : undefined, ...limits }
}

/** The limits of the trial run: small, and of every kind a run uses, so the trial exercises each mechanism. */
const trialLimits = { limits: { cpuSeconds: 10 }, pids: 64, memoryBytes: 256 * 1024 * 1024, cpuBudgetSeconds: 10 }

/**
 * Checks that bubblewrap really works here: the binary exists, and a sandbox with every namespace
 * and the seccomp filter can start. On failure the reason says what blocked it and how to fix it
 * (AppArmor's restriction of unprivileged user namespaces is the usual one on Ubuntu).
 */
export async function checkBubblewrapHost(configured?: string, cgroups: CgroupSupport | undefined = detectCgroupSupport()): Promise<BubblewrapHost> {
  const arch = seccompArch()
  if (!arch) return { ok: false, reason: `no seccomp filter is known for ${process.arch}; the sandbox does not run without one` }
  const bwrap = findBwrap(configured)
  if (!bwrap) {
    return {
      ok: false,
      reason: `bwrap not found${configured ? ` at ${configured}` : ' on the PATH'}. Install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)`
    }
  }
  const bash = systemProgram('bash')
  if (!bash) return { ok: false, reason: `bash not found in ${systemPath}; the sandbox launcher needs it` }
  const env = { PATH: systemPath, LANG: 'C.UTF-8' }
  const version = await runBounded({ argv: [bwrap, '--version'], cwd: '/', env, timeoutMs: 5000, maxOutputBytes: 1024 })
  const host = {
    ok: true as const,
    bwrap,
    version: version.stdout.trim().replace(/^bubblewrap\s*/, ''),
    filter: buildSeccompFilter(arch),
    programs: { bash, sh: systemProgram('sh') ?? bash, bwrap, prlimit: systemProgram('prlimit') },
    identity: sandboxIdentity()
  }
  if (!host.programs.prlimit) return { ok: false, reason: `prlimit not found in ${systemPath}; install util-linux` }
  // The trial takes exactly the path of a run: the sandbox identity, a cgroup, rlimits, the filter.
  const trial = await runSandboxedOnce(host, cgroups, ['/bin/true'])
  if (trial.exitCode !== 0) return { ok: false, reason: explainFailure(trial.stderr.trim()) }
  return host
}

/** Runs one program in a sandbox without a workspace or network, through a run's own launch path: probes and toolchain checks. */
export async function runSandboxedOnce(
  host: Extract<BubblewrapHost, { ok: true }>,
  cgroups: CgroupSupport | undefined,
  program: string[]
): Promise<CommandResult> {
  const launcher = spawnLauncher(launcherSpec(host, trialLimits), cgroups, [])
  const result = await runBounded({
    prepared: launcher.prepared({ readOnly: [], cwd: '/', network: 'none', env: { PATH: systemPath, LANG: 'C.UTF-8' } }, program),
    cwd: '/',
    env: {},
    timeoutMs: 10_000,
    maxOutputBytes: 8192
  })
  await launcher.cgroup?.finish()
  return result
}

function explainFailure(stderr: string): string {
  const said = stderr.split('\n').at(-1) || 'bwrap failed'
  if (/seccomp/i.test(stderr)) return `bwrap could not apply the seccomp filter (${said}); this kernel lacks seccomp filtering`
  if (/namespace|uid map|setting up uid|Operation not permitted|Permission denied/i.test(stderr)) {
    const apparmor = readSysctl('/proc/sys/kernel/apparmor_restrict_unprivileged_userns')
    if (apparmor === '1') {
      return `bwrap cannot create user namespaces: AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1; bwrap said: ${said}). Fix: add an AppArmor profile that allows userns for /usr/bin/bwrap, or run sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`
    }
    if (readSysctl('/proc/sys/kernel/unprivileged_userns_clone') === '0') {
      return `bwrap cannot create user namespaces: kernel.unprivileged_userns_clone=0 (bwrap said: ${said}). Fix: sudo sysctl -w kernel.unprivileged_userns_clone=1`
    }
    if (readSysctl('/proc/sys/user/max_user_namespaces') === '0') {
      return `bwrap cannot create user namespaces: user.max_user_namespaces=0 (bwrap said: ${said}). Fix: sudo sysctl -w user.max_user_namespaces=15000`
    }
    return `bwrap cannot create its namespaces here (${said}). In a container, run Airlock with user namespaces allowed (e.g. a seccomp/AppArmor profile that permits them)`
  }
  return `bwrap failed a trial run: ${said}`
}

function readSysctl(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return undefined
  }
}
