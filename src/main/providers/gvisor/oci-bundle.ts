import { existsSync, fstatSync, lstatSync, mkdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { NetworkMode } from '../../core'
import type { OpenBind } from '../bubblewrap/sandbox-binds'
import { etcFiles, networkEtcFiles, systemPaths } from '../bubblewrap/sandbox-command'

/** What one gVisor run is given: the program, its view of the host, its identity and its limits. */
export type BundlePlan = {
  argv: string[]
  cwd: string
  env: Record<string, string>
  /** The sandbox identity (a dedicated uid: gVisor runs only where Airlock is root). */
  user: { uid: number; gid: number }
  network: NetworkMode
  /** Directories (and protected files) opened by the host, bound from their descriptors through the stage. */
  binds: OpenBind[]
  /** Operator-configured read-only paths (toolchains outside /usr), bound by path. */
  readOnly: string[]
  /** Workspace entries hidden under an empty read-only folder or `/dev/null`, mounted last. */
  hidden: { dest: string; directory: boolean }[]
  /** Processes the program may run at once (RLIMIT_NPROC in the sandbox's own kernel). */
  processes: number
  /** CPU seconds per process (RLIMIT_CPU; the host also holds the whole run to its budget). */
  cpuSeconds: number
  /** The OCI seccomp filter the sandbox's kernel applies to the program (`gvisorSeccomp`). */
  seccomp: object
}

type OciMount = { destination: string; type: string; source: string; options?: string[] }

/** Where, inside a bundle, the host-opened binds appear (bwrap's `--bind-fd` puts each there first). */
export const stageFolder = 'stage'

/**
 * Writes a run's OCI bundle: `config.json` and a `rootfs/` that holds nothing but mount points
 * (and the merged-/usr symlinks), read-only to the sandbox. Every bind from `plan.binds` names
 * `stage/<i>`, which is empty on the host: the launcher binds the very directory Airlock opened
 * there in a mount namespace of its own (`bwrap --bind-fd`, which checks the mount is that
 * directory), so neither runsc nor its gofer resolves a workspace path the sandbox could have
 * swapped for a symlink. Returns the stage paths in the order of `plan.binds`.
 */
export function writeBundle(bundle: string, plan: BundlePlan): string[] {
  const rootfs = join(bundle, 'rootfs')
  mkdirSync(rootfs, { recursive: true, mode: 0o755 })
  const stage = plan.binds.map((bind, index) => {
    const path = join(bundle, stageFolder, String(index))
    makeMountPoint(path, fstatSync(bind.fd).isDirectory())
    return path
  })
  const mounts = bundleMounts(rootfs, plan, stage)
  const config = {
    ociVersion: '1.0.2',
    process: {
      terminal: false,
      user: plan.user,
      args: plan.argv,
      env: Object.entries(plan.env).map(([name, value]) => `${name}=${value}`),
      cwd: plan.cwd,
      rlimits: [
        { type: 'RLIMIT_NPROC', hard: plan.processes, soft: plan.processes },
        { type: 'RLIMIT_CPU', hard: Math.ceil(plan.cpuSeconds) + 1, soft: Math.ceil(plan.cpuSeconds) },
        { type: 'RLIMIT_NOFILE', hard: 4096, soft: 4096 }
      ],
      capabilities: { bounding: [], effective: [], inheritable: [], permitted: [], ambient: [] },
      noNewPrivileges: true
    },
    root: { path: 'rootfs', readonly: true },
    hostname: 'airlock-sandbox',
    mounts,
    linux: { namespaces: ['pid', 'network', 'ipc', 'uts', 'mount'].map((type) => ({ type })), seccomp: plan.seccomp }
  }
  writeFileSync(join(bundle, 'config.json'), JSON.stringify(config), { mode: 0o600 })
  return stage
}

/** The mounts of a run, outer first: system read-only, fresh /tmp, the binds, each workspace's `.airlock/` covered, hidden entries last. */
function bundleMounts(rootfs: string, plan: BundlePlan, stage: string[]): OciMount[] {
  const mounts: OciMount[] = [
    { destination: '/proc', type: 'proc', source: 'proc' },
    { destination: '/dev', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'noexec', 'strictatime', 'mode=755'] },
    { destination: '/tmp', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'nodev', 'mode=1777'] }
  ]
  const readOnlyBind = (path: string): OciMount => ({ destination: path, type: 'bind', source: path, options: ['rbind', 'ro', 'nosuid', 'nodev'] })
  for (const path of systemPaths) {
    if (!existsSync(path)) continue
    const stat = lstatSync(path)
    // Merged /usr: /bin is a link to usr/bin on the host, and the same link in the sandbox's root.
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(path), join(rootfs, path))
    else mounts.push(readOnlyBind(path))
  }
  for (const path of [...etcFiles, ...(plan.network === 'full' ? networkEtcFiles : []), ...plan.readOnly]) if (existsSync(path)) mounts.push(readOnlyBind(path))
  const binds = plan.binds.map((bind, index) => ({ ...bind, source: stage[index]! })).sort((a, b) => a.dest.split('/').length - b.dest.split('/').length)
  for (const bind of binds) {
    mounts.push({ destination: bind.dest, type: 'bind', source: bind.source, options: ['bind', bind.writable ? 'rw' : 'ro', 'nosuid', 'nodev'] })
    if (bind.masksAirlock) mounts.push({ destination: `${bind.dest}/.airlock`, type: 'tmpfs', source: 'tmpfs', options: ['ro', 'nosuid', 'nodev', 'noexec'] })
  }
  for (const entry of plan.hidden)
    mounts.push(
      entry.directory
        ? { destination: entry.dest, type: 'tmpfs', source: 'tmpfs', options: ['ro', 'nosuid', 'nodev', 'noexec'] }
        : { destination: entry.dest, type: 'bind', source: '/dev/null', options: ['bind', 'ro'] }
    )
  for (const mount of mounts) makeMountPoint(join(rootfs, mount.destination), mountsDirectory(mount))
  return mounts
}

/** Whether a mount's destination is a directory (a file bind needs a file to mount on). */
function mountsDirectory(mount: OciMount): boolean {
  if (mount.type !== 'bind') return true
  if (mount.source === '/dev/null') return false
  try {
    return lstatSync(mount.source).isDirectory()
  } catch {
    return true
  }
}

/** A mount point in the read-only root: gVisor mounts only where a directory or file already is. */
function makeMountPoint(path: string, directory: boolean): void {
  if (existsSync(path)) return
  if (directory) mkdirSync(path, { recursive: true, mode: 0o755 })
  else {
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 })
    writeFileSync(path, '', { mode: 0o644 })
  }
}
