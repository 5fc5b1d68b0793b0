import { isUtf8 } from 'node:buffer'
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync, type Stats } from 'node:fs'
import { descriptorPath, giveTo, openDirectoryNoFollow, type SandboxIdentity } from '../../core/sandbox'
import { joinComponents } from './workspace-path'
import { WorkspaceFileError } from './workspace-file-error'

/**
 * Race-safe resolution of workspace paths. The workspace is writable by the agent's sandboxed code
 * at any moment, so nothing in it is trusted: every step opens one name in a directory Airlock
 * already holds open (`/proc/self/fd/<dir>/<name>`, O_NOFOLLOW; see core/sandbox/no-follow.ts), so
 * no step ever follows a link the kernel would. Symbolic links are resolved by Airlock itself, at
 * most `maxLinkHops` of them: a target inside the workspace continues the walk from the workspace
 * root (absolute targets must lie under its real path; `..` pops a directory Airlock walked), one
 * that leaves it is refused. A name that changes kind between a look and an open is looked at
 * again (counted as a hop), never followed. `.airlock/` (the host's execution areas, hidden from
 * sandboxes) is never entered.
 */

/** The most symbolic links (and changes seen mid-walk) one resolution goes through: the kernel's MAXSYMLINKS. */
export const maxLinkHops = 40

/** O_PATH (Linux; Node does not export it): a descriptor to walk through without opening the directory. */
const O_PATH = 0o10000000

/** The host-kept folder at the workspace root that the file actions never enter. */
export const hostFolder = '.airlock'

/** An agent's workspace opened for one call: its real path and a descriptor of its root. */
export type WorkspaceRoot = { path: string; fd: number }

/**
 * Where a workspace path led. `dirFd` is the open directory holding the entry (the caller closes
 * it), `name` its name there (undefined when the entry is that directory itself: the workspace
 * root, or a link to a directory above), `components` its real workspace-relative path, `stat`
 * what is there now (lstat; undefined when nothing is).
 */
export type ResolvedEntry = { dirFd: number; name: string | undefined; components: string[]; stat: Stats | undefined }

/**
 * What to do with a missing parent folder: `require` it (not found), `create` it (given to
 * `owner`), or `stop` there and report the entry as missing without creating anything.
 */
export type ResolveOptions = { parents: 'require' | 'create' | 'stop'; owner?: SandboxIdentity | 'host' }

/** Opens an agent's workspace root; refuses a workspace that is missing or is not a real directory path. */
export function openWorkspace(workspace: string): WorkspaceRoot {
  let path: string
  try {
    path = realpathSync(workspace)
    return { path, fd: openDirectoryNoFollow(path) }
  } catch (error) {
    throw new WorkspaceFileError('workspace_unavailable', `The agent's workspace ${workspace} cannot be opened: ${(error as Error).message}`, { workspace })
  }
}

/** Closes what `openWorkspace` opened. */
export function closeWorkspace(root: WorkspaceRoot): void {
  closeSync(root.fd)
}

/** Resolves a workspace path's components (already validated by `pathComponents`) as the module comment says. */
export function resolveEntry(root: WorkspaceRoot, components: readonly string[], options: ResolveOptions = { parents: 'require' }): ResolvedEntry {
  const queue = [...components]
  let walked: string[] = []
  let dirFd = reopen(root, [])
  let hops = 0
  const hop = () => {
    hops += 1
    if (hops > maxLinkHops)
      throw new WorkspaceFileError(
        'symlink_loop',
        `${joinComponents(components)}: more than ${maxLinkHops} symbolic links (or changes while resolving it) on the way.`,
        { path: joinComponents(components) }
      )
  }
  const moveTo = (fd: number, to: string[]) => {
    closeSync(dirFd)
    dirFd = fd
    walked = to
  }
  try {
    while (queue.length > 0) {
      const part = queue.shift() as string
      if (part === '..') {
        if (walked.length === 0) throw outside(components, 'a symbolic link on the way points above the workspace')
        moveTo(reopen(root, walked.slice(0, -1)), walked.slice(0, -1))
        continue
      }
      if (walked.length === 0 && part === hostFolder) {
        throw new WorkspaceFileError(
          'reserved_path',
          `${joinComponents(components)}: ${hostFolder}/ holds the host's execution areas; the file actions do not touch it.`,
          { path: joinComponents(components) }
        )
      }
      const at = `${descriptorPath(dirFd)}/${part}`
      const stat = lstatIfAny(at)
      if (stat?.isSymbolicLink()) {
        hop()
        const target = linkTarget(at)
        if (target === undefined) {
          queue.unshift(part)
          continue
        }
        const { absolute, parts } = linkComponents(target, root.path, components)
        if (absolute) moveTo(reopen(root, []), [])
        queue.unshift(...parts)
        continue
      }
      if (queue.length === 0) return { dirFd, name: part, components: [...walked, part], stat }
      if (stat && !stat.isDirectory())
        throw new WorkspaceFileError('not_directory', `${joinComponents([...walked, part])} is not a folder.`, { path: joinComponents([...walked, part]) })
      if (!stat && options.parents === 'require')
        throw new WorkspaceFileError('not_found', `${joinComponents([...walked, part])} does not exist.`, { path: joinComponents([...walked, part]) })
      if (!stat && options.parents === 'stop') return { dirFd, name: part, components: [...walked, part, ...queue], stat: undefined }
      const next = stat ? openChild(dirFd, part) : makeChild(dirFd, part, options.owner ?? 'host')
      if (next === undefined) {
        // It changed between the look and the open: look again.
        hop()
        queue.unshift(part)
        continue
      }
      moveTo(next, [...walked, part])
    }
    return { dirFd, name: undefined, components: walked, stat: fstatSync(dirFd) }
  } catch (error) {
    closeSync(dirFd)
    throw error
  }
}

/** Opens the directory a resolved entry names (O_PATH is enough to list it through /proc/self/fd). */
export function openResolvedDirectory(entry: ResolvedEntry): number {
  if (entry.name === undefined) return openChild(entry.dirFd, '.') ?? failChanged(entry)
  if (!entry.stat) throw new WorkspaceFileError('not_found', `${joinComponents(entry.components)} does not exist.`, { path: joinComponents(entry.components) })
  if (!entry.stat.isDirectory())
    throw new WorkspaceFileError('not_directory', `${joinComponents(entry.components)} is not a folder.`, { path: joinComponents(entry.components) })
  return openChild(entry.dirFd, entry.name) ?? failChanged(entry)
}

/** Opens `components` (real directories, no links) below the root again, each step no-follow. */
export function reopen(root: WorkspaceRoot, components: readonly string[]): number {
  let fd = openChild(root.fd, '.')
  for (const part of components) {
    const next = fd === undefined ? undefined : openChild(fd, part)
    if (fd !== undefined) closeSync(fd)
    fd = next
  }
  if (fd === undefined)
    throw new WorkspaceFileError('changed_during_operation', `${joinComponents(components)} changed while Airlock was using it.`, {
      path: joinComponents(components)
    })
  return fd
}

function failChanged(entry: ResolvedEntry): never {
  throw new WorkspaceFileError('changed_during_operation', `${joinComponents(entry.components)} changed while Airlock was using it.`, {
    path: joinComponents(entry.components)
  })
}

function outside(components: readonly string[], why: string): WorkspaceFileError {
  return new WorkspaceFileError('outside_workspace', `${joinComponents(components)} leads outside the agent's workspace (${why}); refused.`, {
    path: joinComponents(components)
  })
}

function lstatIfAny(path: string): Stats | undefined {
  try {
    return lstatSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/** A link's target as bytes; undefined when the name is no longer a link (it changed: look again). */
function linkTarget(path: string): Buffer | undefined {
  try {
    return readlinkSync(path, { encoding: 'buffer' })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EINVAL' || code === 'ENOENT') return undefined
    throw error
  }
}

/** The components a link's target continues with; an absolute target must lie under the workspace's real path. */
function linkComponents(target: Buffer, rootPath: string, components: readonly string[]): { absolute: boolean; parts: string[] } {
  if (!isUtf8(target))
    throw new WorkspaceFileError('invalid_path', `${joinComponents(components)}: a symbolic link on the way has a target that is not UTF-8.`, {
      path: joinComponents(components)
    })
  const text = target.toString('utf8')
  const split = (value: string) => value.split('/').filter((part) => part !== '' && part !== '.')
  if (!text.startsWith('/')) return { absolute: false, parts: split(text) }
  if (text !== rootPath && !text.startsWith(`${rootPath}/`)) throw outside(components, `a symbolic link on the way points to ${text}`)
  return { absolute: true, parts: split(text.slice(rootPath.length)) }
}

/** Opens directory `name` in `dirFd` (O_PATH, no-follow); undefined when it is no longer a directory. */
function openChild(dirFd: number, name: string): number | undefined {
  try {
    return openSync(`${descriptorPath(dirFd)}/${name}`, O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') return undefined
    throw error
  }
}

/** Makes folder `name` in `dirFd` for `owner` and opens it; undefined when something appeared there first. */
function makeChild(dirFd: number, name: string, owner: SandboxIdentity | 'host'): number | undefined {
  const path = `${descriptorPath(dirFd)}/${name}`
  try {
    mkdirSync(path, { mode: 0o755 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined
    throw error
  }
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') return undefined
    throw error
  }
  if (owner !== 'host') giveTo(fd, owner)
  return fd
}
