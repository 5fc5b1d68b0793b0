import { readFileSync } from 'node:fs'
import { findExecutable } from '../process/provider-helpers'
import { join } from 'node:path'
import type { CommandResult } from '../../core'
import { runBounded } from '../process/bounded-process'
import { systemPath } from '../process/run-limits'
import { buildSeccompFilter, seccompArch } from './seccomp-filter'
import { spawnLauncher } from './warm-sandbox'

/** What the host check found: a working bwrap (path, version) or the reason and the fix. */
export type BubblewrapHost = { ok: true; bwrap: string; version: string; filter: Buffer } | { ok: false; reason: string }

/** Finds bwrap: the configured path, else the system PATH. */
export function findBwrap(configured?: string): string | undefined {
  return findExecutable(configured ? [configured] : systemPath.split(':').map((dir) => join(dir, 'bwrap')))
}

/**
 * Checks that bubblewrap really works here: the binary exists, and a sandbox with every namespace
 * and the seccomp filter can start. On failure the reason says what blocked it and how to fix it
 * (AppArmor's restriction of unprivileged user namespaces is the usual one on Ubuntu).
 */
export async function checkBubblewrapHost(configured?: string): Promise<BubblewrapHost> {
  const arch = seccompArch()
  if (!arch) return { ok: false, reason: `no seccomp filter is known for ${process.arch}; the sandbox does not run without one` }
  const bwrap = findBwrap(configured)
  if (!bwrap) {
    return { ok: false, reason: `bwrap not found${configured ? ` at ${configured}` : ' on the PATH'}. Install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)` }
  }
  const env = { PATH: systemPath, LANG: 'C.UTF-8' }
  const version = await runBounded({ argv: [bwrap, '--version'], cwd: '/', env, timeoutMs: 5000, maxOutputBytes: 1024 })
  const filter = buildSeccompFilter(arch)
  const trial = await runSandboxedOnce(bwrap, filter, ['/bin/true'])
  if (trial.exitCode !== 0) return { ok: false, reason: explainFailure(trial.stderr.trim()) }
  return { ok: true, bwrap, version: version.stdout.trim().replace(/^bubblewrap\s*/, ''), filter }
}

/** Runs one program in a bare sandbox (no workspace, no network, no limits): probes and toolchain checks. */
export function runSandboxedOnce(bwrap: string, filter: Buffer, program: string[]): Promise<CommandResult> {
  const launcher = spawnLauncher({ bwrap, filter, limits: {} }, undefined)
  return runBounded({
    prepared: launcher.prepared({ writable: [], readOnly: [], cwd: '/', network: 'none', env: { PATH: systemPath, LANG: 'C.UTF-8' } }, program),
    cwd: '/',
    env: {},
    timeoutMs: 10_000,
    maxOutputBytes: 8192
  })
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
