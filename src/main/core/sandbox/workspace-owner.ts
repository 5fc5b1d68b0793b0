import { closeSync, fchmodSync, fchownSync, fstatSync, mkdirSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { openBeneath, openDirectoryNoFollow, NoFollowError } from './no-follow'
import { sandboxIdentity, type SandboxIdentity } from './sandbox-identity'

/**
 * Creates (if needed) a workspace root for sandboxed code. When sandboxes run as the dedicated
 * uid (Airlock is root), the root becomes `root:<sandbox gid>` mode 1770: the sandbox writes it
 * through its group, and the sticky bit stops it renaming or replacing what the host keeps there
 * (`.airlock/`, where execution areas live), so the host's paths into the workspace stay the host's.
 * Only the root directory changes, through its descriptor: nothing inside is chowned, because a
 * tree a sandbox could already write may hold links to anywhere.
 */
export function claimWorkspace(path: string, identity: SandboxIdentity = sandboxIdentity()): void {
  mkdirSync(dirname(path), { recursive: true })
  const parent = openDirectoryNoFollow(dirname(path))
  const fd = openBeneath(parent, path.slice(dirname(path).length + 1), { closeBase: true, create: 'host' })
  try {
    if (identity.dedicated) {
      fchownSync(fd, 0, identity.gid)
      fchmodSync(fd, 0o1770)
    }
  } finally {
    closeSync(fd)
  }
}

/**
 * Opens (creating if needed) a directory the host keeps inside a workspace (`.airlock`,
 * `.airlock/executions`). Under a dedicated sandbox uid the host takes it back whoever made it
 * (root-owned, 0711, through its descriptor): the sandbox then cannot rename or list what is inside.
 */
export function openHostDirectory(parentFd: number, name: string, identity: SandboxIdentity = sandboxIdentity()): number {
  const fd = openBeneath(parentFd, name, { create: 'host' })
  if (identity.dedicated) {
    const stat = fstatSync(fd)
    if (stat.uid !== 0 || stat.gid !== 0) fchownSync(fd, 0, 0)
    // Searchable, not listable: a container that mounts the executions folder finds its own area by name only.
    if ((stat.mode & 0o7777) !== 0o711) fchmodSync(fd, 0o711)
  }
  return fd
}

/**
 * Refuses a path the sandbox identity cannot reach: bubblewrap resolves its bind sources as the
 * sandbox uid, so every ancestor must let that uid search it (a home such as /root, mode 0700,
 * does not). The message names the directory and the fix.
 */
export function assertReachableBySandbox(path: string, identity: SandboxIdentity = sandboxIdentity()): void {
  if (!identity.dedicated) return
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const stat = statSync(dir)
    const bit = stat.uid === identity.uid ? 0o100 : stat.gid === identity.gid ? 0o010 : 0o001
    if ((stat.mode & bit) === 0) {
      throw new NoFollowError(
        `sandboxed code runs as uid ${identity.uid} (Airlock runs as root) and cannot reach ${path}: ${dir} is mode ${(stat.mode & 0o777).toString(8)}. Fix: move the home where other users can search it, keeping agents, tokens and history: airlock home move /var/lib/airlock (the default home when Airlock runs as root)`
      )
    }
    if (dir === '/') return
  }
}

/** Why sandboxed code could not reach `path` (see `assertReachableBySandbox`), or undefined when it can. */
export function sandboxReachProblem(path: string, identity: SandboxIdentity = sandboxIdentity()): string | undefined {
  try {
    assertReachableBySandbox(path, identity)
    return undefined
  } catch (error) {
    // A folder that does not exist yet is judged when it does.
    if (!(error instanceof NoFollowError)) return undefined
    return error.message
  }
}

/**
 * Refuses a workspace root the sandbox identity could not write (a root created by root and not
 * claimed), with the fix: sandboxed code would fail later with a bare "Permission denied".
 */
export function assertWritableBySandbox(rootFd: number, root: string, identity: SandboxIdentity = sandboxIdentity()): void {
  const stat = fstatSync(rootFd)
  const writable =
    (stat.uid === identity.uid && (stat.mode & 0o200) !== 0) || (stat.gid === identity.gid && (stat.mode & 0o020) !== 0) || (stat.mode & 0o002) !== 0
  if (!writable) {
    throw new NoFollowError(
      `the workspace ${root} belongs to uid ${stat.uid}, and sandboxed code runs as uid ${identity.uid}${identity.dedicated ? ' (Airlock runs as root, so sandboxes get their own unprivileged uid)' : ''}: create it with claimWorkspace() so the sandbox can write it`
    )
  }
}
