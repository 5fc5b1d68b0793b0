import { existsSync, lstatSync, readlinkSync } from 'node:fs'
import type { NetworkMode } from '../../core'
import { closeDescriptorsAbove } from '../runner/descriptors'
import { ProviderError } from '../../core/provider-error'

/**
 * Host directories a sandbox sees read-only: the system (toolchains elsewhere, e.g. under /opt,
 * come from the provider's `readOnlyBinds`). Each bind costs bwrap time on every run, so the lists
 * are short on purpose.
 */
export const systemPaths = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']

/** The few files of /etc programs need; the rest of /etc (shadow, keys, configs) stays outside. */
export const etcFiles = ['/etc/ld.so.cache', '/etc/alternatives', '/etc/localtime', '/etc/nsswitch.conf', '/etc/passwd', '/etc/group', '/etc/hosts']

/** What programs need for the network when the policy allows it: DNS and the trust store. */
export const networkEtcFiles = ['/etc/resolv.conf', '/etc/ssl', '/etc/ca-certificates']

/**
 * A directory bound into the sandbox from an open descriptor (bwrap's `--bind-fd`): the very
 * directory Airlock opened and checked, never a path the sandbox could have swapped since.
 */
export type SandboxBind = { dest: string; writable: boolean; masksAirlock?: boolean }

/**
 * An execution area bound by name from a descriptor of its executions folder the launcher holds
 * (`/proc/self/fd/<fd>/<name>`). Only used where the sandbox cannot change that folder's entries
 * (it is root's, 0711, under a dedicated sandbox uid), so the name still means the directory the
 * host created when bwrap mounts it.
 */
export type AreaBind = { fd: number; name: string; dest: string }

/** What one sandboxed run is given (bwrap's own arguments, sent on fd 4). */
export type SandboxPlan = {
  /** Directories bound at their host paths, from the launcher's descriptors `firstBindFd`, `firstBindFd + 1`, ... */
  binds: SandboxBind[]
  /** Execution areas bound by name under an executions folder the launcher holds open (after `binds`). */
  areas?: AreaBind[]
  /** Operator-configured read-only paths (toolchains outside /usr), bound by path. */
  readOnly: string[]
  cwd: string
  network: NetworkMode
  /** The program's whole environment (bwrap starts from an empty one). */
  env: Record<string, string>
  /** Workspace entries hidden under an empty read-only folder or file (labelled above what the run may read), mounted after everything else. */
  hidden?: { dest: string; directory: boolean }[]
}

/** Limits applied before bwrap starts (rlimits; the cgroup is joined by the host). */
export type SandboxLimits = {
  cpuSeconds?: number
  /** RLIMIT_AS in bytes, only where no memory cgroup enforces memory. */
  addressSpaceBytes?: number
}

/** The file descriptors the sandbox launcher reads: the seccomp program, bwrap's options, the program, then bind sources. */
export const seccompFd = 3
export const bwrapArgsFd = 4
export const programFd = 5
export const firstBindFd = 6

/**
 * bwrap takes its options from a file descriptor but its command only from the command line, so
 * the command is this fixed trampoline: inside the sandbox it reads one line from fd 5 (built by
 * `encodeRun`) and evaluates it, with no fork.
 */
const trampoline = `nl='\n'; IFS= read -r cmd <&5 || exit 126; exec 5<&-; eval "$cmd"`

/**
 * The trampoline's line for one run: close every descriptor but stdio (a descriptor of a host
 * directory would lead out of the sandbox), then exec the program. Newlines inside words arrive
 * as $nl. (That each bind is the directory Airlock opened is bwrap's check: `--bind-fd` compares
 * the mount with the descriptor and refuses a swap — "Race condition binding dirfd".)
 */
export function encodeRun(argv: string[]): Buffer {
  if (argv.some((word) => word.includes('\0'))) throw new ProviderError('invalid_program', 'a program argument contains NUL')
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`).replace(/\n/g, `'"$nl"'`)}'`
  return Buffer.from(`${closeSandboxDescriptors}; exec ${argv.map(quote).join(' ')}\n`)
}

/**
 * The trampoline's descriptor sweep (run by `sh`, i.e. dash, which starts in a fraction of bash's
 * time but can only name descriptors 0-9): closes 3-9, and refuses to run the program at all if
 * any higher descriptor is open (none is: the launcher passes at most a few, and bwrap closes the
 * ones it consumed) — fail closed rather than let a host descriptor reach the program.
 */
const closeSandboxDescriptors = `for f in /proc/self/fd/*; do n=\${f##*/}; case $n in 0|1|2) ;; [3-9]) eval "exec $n>&-" ;; *) echo "airlock: unexpected descriptor $n in the sandbox" >&2; exit 126 ;; esac; done`

/** The host programs a launch uses, resolved once from the system directories (never a caller's PATH). */
export type LauncherPrograms = { bash: string; sh: string; bwrap: string; prlimit?: string }

/**
 * The launcher's argv: bash closes every descriptor but its pipes and bind sources, `prlimit`
 * applies the CPU (and, without a memory cgroup, address-space) rlimits, then bwrap waits for its
 * arguments on fd 4. The host places the launcher in the run's cgroup before the run begins.
 */
export function sandboxLauncherArgv(programs: LauncherPrograms, limits: SandboxLimits, passedFdCount: number): string[] {
  const rlimits = [
    // Soft limit → SIGXCPU (exit 152, reported as the cpu limit); hard limit a second later → SIGKILL.
    ...(limits.cpuSeconds ? [`--cpu=${Math.ceil(limits.cpuSeconds)}:${Math.ceil(limits.cpuSeconds) + 1}`] : []),
    ...(limits.addressSpaceBytes ? [`--as=${limits.addressSpaceBytes}`] : [])
  ]
  if (rlimits.length && !programs.prlimit) throw new ProviderError('host_tool_missing', 'prlimit (util-linux) is needed to apply rlimits and was not found')
  return [
    // --norc: stdin is a socket pair, and bash would then take itself for an ssh session and read ~/.bashrc.
    programs.bash,
    '--norc',
    '--noprofile',
    '-c',
    `${closeDescriptorsAbove(firstBindFd + passedFdCount - 1)}; exec "$@"`,
    'airlock-sandbox',
    ...(rlimits.length ? [programs.prlimit!, ...rlimits, '--'] : []),
    programs.bwrap,
    '--args',
    String(bwrapArgsFd),
    '--',
    programs.sh,
    '-c',
    trampoline,
    'airlock-run'
  ]
}

/**
 * Kernel knobs a sandbox never writes and host facts it never reads (Docker masks the same list).
 * bwrap already binds /proc/sys, sysrq-trigger, irq and bus read-only; these are covered with an
 * empty read-only file or directory on top.
 */
const maskedProcFiles = [
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/sysrq-trigger'
]
const maskedProcDirs = ['/proc/acpi', '/proc/scsi', '/proc/fs', '/proc/irq', '/proc/bus']

/**
 * bwrap's options for one run (sent on fd 4): user, pid, ipc, uts, cgroup (and, unless the policy allows
 * network, net) namespaces, no nested user namespaces, read-only system binds, only the given
 * directories writable (bound from descriptors; bwrap binds are always nosuid and nodev), fresh
 * /tmp /proc /dev with kernel knobs masked, a read-only root, every capability dropped,
 * `--die-with-parent`, `--new-session`, a clean environment, and the seccomp filter on fd 3.
 */
export function sandboxArgs(plan: SandboxPlan): string[] {
  const args = [
    '--unshare-user',
    '--disable-userns',
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
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--symlink', '../tmp', '/var/tmp')
  // After the fresh /tmp, so a host-made directory under /tmp (git's private one) is not covered by it.
  for (const path of plan.readOnly) args.push('--ro-bind', path, path)
  for (const path of maskedProcFiles) if (existsSync(path)) args.push('--ro-bind', '/dev/null', path)
  for (const path of maskedProcDirs) if (existsSync(path)) args.push('--tmpfs', path, '--remount-ro', path)
  // Outer directories first, so a writable area inside a read-only workspace stays writable.
  const ordered = plan.binds.map((bind, index) => ({ ...bind, fd: firstBindFd + index })).sort((a, b) => a.dest.split('/').length - b.dest.split('/').length)
  for (const bind of ordered) {
    args.push(bind.writable ? '--bind-fd' : '--ro-bind-fd', String(bind.fd), bind.dest)
    // A workspace bound whole never shows its host-kept `.airlock/` (other runs' execution areas):
    // a sandbox that could see them could hard-link their files and read or rewrite them later.
    if (bind.masksAirlock) args.push('--tmpfs', `${bind.dest}/.airlock`, '--remount-ro', `${bind.dest}/.airlock`)
  }
  for (const area of plan.areas ?? []) {
    if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(area.name) || area.name.startsWith('.'))
      throw new ProviderError('invalid_program', `invalid execution area name ${area.name}`)
    args.push('--bind', `/proc/self/fd/${area.fd}/${area.name}`, area.dest)
  }
  // Last, so no bind (a protected path, an area) lands on top of what is hidden.
  for (const entry of plan.hidden ?? [])
    args.push(...(entry.directory ? ['--tmpfs', entry.dest, '--remount-ro', entry.dest] : ['--ro-bind', '/dev/null', entry.dest]))
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
