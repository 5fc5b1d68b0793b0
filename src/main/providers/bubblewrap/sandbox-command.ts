import { existsSync, lstatSync, readlinkSync } from 'node:fs'
import type { NetworkMode } from '../../core'

/**
 * Host directories a sandbox sees read-only: the system (toolchains elsewhere, e.g. under /opt,
 * come from the provider's `readOnlyBinds`). Each bind costs bwrap time on every run, so the lists
 * are short on purpose.
 */
const systemPaths = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']

/** The few files of /etc programs need; the rest of /etc (shadow, keys, configs) stays outside. */
const etcFiles = ['/etc/ld.so.cache', '/etc/alternatives', '/etc/localtime', '/etc/nsswitch.conf', '/etc/passwd', '/etc/group', '/etc/hosts']

/** What programs need for the network when the policy allows it: DNS and the trust store. */
const networkEtcFiles = ['/etc/resolv.conf', '/etc/ssl', '/etc/ca-certificates']

/** What one sandboxed run is given (bwrap's own arguments, sent on fd 4). */
export type SandboxPlan = {
  /** Writable roots, bound at the same path inside. */
  writable: string[]
  /** Extra read-only paths (toolchains outside /usr). */
  readOnly: string[]
  cwd: string
  network: NetworkMode
  /** The program's whole environment (bwrap starts from an empty one). */
  env: Record<string, string>
}

/** Limits applied before bwrap starts: the run's cgroups and rlimits. */
export type SandboxLimits = {
  /** The process joins these cgroups first (empty: none). */
  cgroupProcs: string[]
  cpuSeconds?: number
  /** RLIMIT_AS in bytes, only where no memory cgroup enforces memory. */
  addressSpaceBytes?: number
}

/** The file descriptors the sandbox launcher reads: the seccomp program, bwrap's options, the program. */
export const seccompFd = 3
export const bwrapArgsFd = 4
export const programFd = 5

/**
 * bwrap takes its options from a file descriptor but its command only from the command line, so
 * the command is this fixed trampoline: inside the sandbox it reads the program (one line of
 * shell-quoted words; newlines inside words arrive as $nl) from fd 5 and execs it, with no fork.
 */
const trampoline = "nl='\n'; IFS= read -r cmd <&5 || exit 126; exec 5<&-; eval \"exec $cmd\""

/** Encodes argv for the trampoline: one line, each word single-quoted, newlines spliced in from $nl. */
export function encodeProgram(argv: string[]): Buffer {
  if (argv.some((word) => word.includes('\0'))) throw new Error('a program argument contains NUL')
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`).replace(/\n/g, `'"$nl"'`)}'`
  return Buffer.from(`${argv.map(quote).join(' ')}\n`)
}

/**
 * The launcher's argv: a tiny `sh` prologue joins the run's cgroups, `prlimit` applies the CPU
 * (and, without a memory cgroup, address-space) rlimits, then bwrap waits for its arguments on
 * fd 4. Spawned ahead of a run, it has already paid for joining the cgroup when the run begins.
 */
export function sandboxLauncherArgv(bwrap: string, limits: SandboxLimits): string[] {
  const rlimits = [
    // Soft limit → SIGXCPU (exit 152, reported as the cpu limit); hard limit a second later → SIGKILL.
    ...(limits.cpuSeconds ? [`--cpu=${Math.ceil(limits.cpuSeconds)}:${Math.ceil(limits.cpuSeconds) + 1}`] : []),
    ...(limits.addressSpaceBytes ? [`--as=${limits.addressSpaceBytes}`] : [])
  ]
  const joinCgroups = 'while [ "$1" != "--" ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
  return [
    '/bin/sh',
    '-c',
    joinCgroups,
    'airlock-sandbox',
    ...limits.cgroupProcs,
    '--',
    ...(rlimits.length ? ['/usr/bin/prlimit', ...rlimits, '--'] : []),
    bwrap,
    '--args',
    String(bwrapArgsFd),
    '--',
    '/bin/sh',
    '-c',
    trampoline,
    'airlock-run'
  ]
}

/**
 * bwrap's options for one run (sent on fd 4): user, pid, ipc, uts, cgroup (and, unless the policy allows
 * network, net) namespaces, read-only system binds, only the given roots writable, fresh /tmp
 * /proc /dev, a read-only root, every capability dropped, `--die-with-parent`, `--new-session`,
 * a clean environment, and the seccomp filter on fd 3.
 */
export function sandboxArgs(plan: SandboxPlan): string[] {
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
    'airlock-sandbox',
    '--clearenv'
  ]
  for (const [name, value] of Object.entries(plan.env)) args.push('--setenv', name, value)
  for (const path of systemPaths) args.push(...bindSystemPath(path))
  for (const path of etcFiles) args.push('--ro-bind-try', path, path)
  if (plan.network === 'full') for (const path of networkEtcFiles) args.push('--ro-bind-try', path, path)
  for (const path of plan.readOnly) args.push('--ro-bind', path, path)
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--symlink', '../tmp', '/var/tmp')
  for (const path of plan.writable) args.push('--bind', path, path)
  args.push('--remount-ro', '/', '--chdir', plan.cwd, '--seccomp', String(seccompFd))
  return args
}

/** A system path as the sandbox sees it: merged-/usr symlinks stay symlinks, directories are bound read-only. */
function bindSystemPath(path: string): string[] {
  if (!existsSync(path)) return []
  const stat = lstatSync(path)
  if (stat.isSymbolicLink()) return ['--symlink', readlinkSync(path), path]
  return ['--ro-bind', path, path]
}
