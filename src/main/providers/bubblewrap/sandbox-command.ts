import { existsSync, lstatSync, readlinkSync } from 'node:fs'
import type { NetworkMode } from '../../core'

/** Host directories a sandbox sees read-only: the system and its toolchains. */
const systemPaths = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt']

/** The few files of /etc programs need; the rest of /etc (shadow, keys, configs) stays outside. */
const etcFiles = [
  '/etc/alternatives',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/nsswitch.conf',
  '/etc/passwd',
  '/etc/group',
  '/etc/hosts',
  '/etc/mime.types',
  '/etc/python3',
  '/etc/python3.11'
]

/** What one sandboxed run is given. */
export type SandboxPlan = {
  bwrap: string
  /** Writable roots, bound at the same path inside. */
  writable: string[]
  /** Extra read-only paths (toolchains outside /usr). */
  readOnly: string[]
  cwd: string
  network: NetworkMode
  /** Processes of the run join these cgroups before bwrap starts (empty: none). */
  cgroupProcs: string[]
  cpuSeconds?: number
  /** RLIMIT_AS in bytes, only where no memory cgroup enforces memory. */
  addressSpaceBytes?: number
}

/**
 * The argv of one sandboxed run: a tiny `sh` prologue joins the run's cgroups and applies
 * rlimits with `prlimit`, then execs bwrap with user, pid, ipc, uts, cgroup (and, unless the
 * policy allows network, net) namespaces, read-only system binds, only the given roots writable,
 * fresh /tmp /proc /dev, a read-only root, every capability dropped, `--die-with-parent`,
 * `--new-session`, and the seccomp filter on fd 3.
 */
export function sandboxArgv(plan: SandboxPlan, program: string[]): string[] {
  const args = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(plan.network === 'full' ? ['--share-net'] : ['--unshare-net']),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--hostname',
    'airlock-sandbox'
  ]
  for (const path of systemPaths) args.push(...bindSystemPath(path))
  for (const path of etcFiles) args.push('--ro-bind-try', path, path)
  if (plan.network === 'full') args.push('--ro-bind-try', '/etc/resolv.conf', '/etc/resolv.conf')
  for (const path of plan.readOnly) args.push('--ro-bind', path, path)
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--dir', '/var', '--symlink', '../tmp', '/var/tmp')
  for (const path of plan.writable) args.push('--bind', path, path)
  args.push('--remount-ro', '/', '--chdir', plan.cwd, '--seccomp', '3', '--', ...program)

  const limits = [
    // Soft limit → SIGXCPU (exit 152, reported as the cpu limit); hard limit a second later → SIGKILL.
    ...(plan.cpuSeconds ? [`--cpu=${Math.ceil(plan.cpuSeconds)}:${Math.ceil(plan.cpuSeconds) + 1}`] : []),
    ...(plan.addressSpaceBytes ? [`--as=${plan.addressSpaceBytes}`] : [])
  ]
  const joinCgroups = 'while [ "$1" != "--" ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
  return ['/bin/sh', '-c', joinCgroups, 'airlock-sandbox', ...plan.cgroupProcs, '--', ...(limits.length ? ['prlimit', ...limits, '--'] : []), plan.bwrap, ...args]
}

/** A system path as the sandbox sees it: merged-/usr symlinks stay symlinks, directories are bound read-only. */
function bindSystemPath(path: string): string[] {
  if (!existsSync(path)) return []
  const stat = lstatSync(path)
  if (stat.isSymbolicLink()) return ['--symlink', readlinkSync(path), path]
  return ['--ro-bind', path, path]
}
