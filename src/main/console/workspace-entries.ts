import { AirlockError } from '@shared/errors'
import { isUtf8 } from 'node:buffer'
import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats } from 'node:fs'
import { descendFolders, descriptorPath, openDirectoryNoFollow } from '../core'

/** Stable codes of the workspace browser's refusals (`workspace.<reason>`). */
export type WorkspaceBrowserErrorCode =
  | 'workspace.unavailable'
  | 'workspace.invalid_path'
  | 'workspace.not_found'
  | 'workspace.not_directory'
  | 'workspace.is_directory'
  | 'workspace.symlink'
  | 'workspace.not_regular_file'
  | 'workspace.hard_link'
  | 'workspace.changed'
  | 'workspace.io_error'

/** What the workspace browser refused or could not read; `code` is stable, the message is for the operator. */
export class WorkspaceBrowserError extends AirlockError<WorkspaceBrowserErrorCode> {}

/** O_PATH (Linux; Node does not export it): names a file or folder without opening it, so nothing on open can block or act. */
export const O_PATH = 0o10000000

/**
 * The components of a browser path (`/`-separated, relative to the workspace; '' and `.` name it
 * itself). `..`, NUL and absolute paths are refused here too, whatever the contract let through.
 */
export function browserComponents(path: string): string[] {
  if (path.includes('\0') || path.startsWith('/')) throw invalid(path, 'must be relative to the workspace, without NUL')
  const parts = path.split('/').filter((part) => part !== '' && part !== '.')
  if (parts.includes('..')) throw invalid(path, 'must not contain .. (the browser never leaves the workspace)')
  if (parts.some((part) => Buffer.byteLength(part) > 255)) throw invalid(path, 'has a name longer than 255 bytes')
  return parts
}

/**
 * Opens an agent's workspace root (`workspace` is its real path; its folders are the host's) as a
 * directory descriptor, refusing a link on every component of the path.
 */
export function openWorkspaceRoot(workspace: string): number {
  try {
    return openDirectoryNoFollow(workspace)
  } catch (error) {
    throw new WorkspaceBrowserError('workspace.unavailable', `The agent's workspace ${workspace} cannot be opened: ${(error as Error).message}`, { workspace })
  }
}

/**
 * Opens the folder `components` below the open folder `rootFd`, one name at a time through
 * `/proc/self/fd/<dir>/<name>` with O_NOFOLLOW: a symbolic link on any component is refused, never
 * followed, so a folder swapped for a link between two calls (or during this one) cannot lead out.
 * Returns an O_PATH descriptor the caller closes.
 */
export function openFolderAt(rootFd: number, components: readonly string[]): number {
  const start = openSync(`${descriptorPath(rootFd)}/.`, O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW)
  // Every step opens a folder or throws: the walk never stops early.
  return descendFolders(start, components, (fd, part, index) => {
    const at = `${descriptorPath(fd)}/${part}`
    try {
      return openSync(at, O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW)
    } catch (error) {
      throw refusal(error, at, components.slice(0, index + 1))
    }
  })!
}

/** What is at `name` in the open folder `dirFd` (lstat: a link is reported, not followed), or undefined when nothing is. */
export function statEntry(dirFd: number, name: string | Buffer): Stats | undefined {
  const at = typeof name === 'string' ? `${descriptorPath(dirFd)}/${name}` : Buffer.concat([Buffer.from(`${descriptorPath(dirFd)}/`), name])
  try {
    return lstatSync(at)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    throw error
  }
}

/**
 * Opens the regular file `name` in the open folder `dirFd` for reading. Mechanism, not names: the
 * entry is looked at (lstat) and refused unless it is a regular file with one link; it is then
 * opened O_PATH|O_NOFOLLOW (opening nothing: a FIFO or device swapped in cannot block or act),
 * that descriptor's fstat must be the very inode looked at, and only then is it reopened for
 * reading through its own descriptor (no name is looked up again). Returns the fd and its fstat.
 */
export function openRegularFileAt(dirFd: number, name: string, components: readonly string[]): { fd: number; stat: Stats } {
  const path = components.join('/')
  const looked = statEntry(dirFd, name)
  assertReadable(looked, path)
  let pathFd: number
  try {
    pathFd = openSync(`${descriptorPath(dirFd)}/${name}`, O_PATH | constants.O_NOFOLLOW)
  } catch (error) {
    throw refusal(error, `${descriptorPath(dirFd)}/${name}`, components)
  }
  try {
    const held = fstatSync(pathFd)
    if (!held.isFile() || held.ino !== looked.ino || held.dev !== looked.dev) throw changed(path)
    assertReadable(held, path)
    const fd = openSync(descriptorPath(pathFd), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY)
    const stat = fstatSync(fd)
    if (stat.ino !== held.ino || stat.dev !== held.dev) {
      closeSync(fd)
      throw changed(path)
    }
    return { fd, stat }
  } finally {
    closeSync(pathFd)
  }
}

function assertReadable(stat: Stats | undefined, path: string): asserts stat is Stats {
  if (!stat) throw new WorkspaceBrowserError('workspace.not_found', `${path} does not exist.`, { path })
  if (stat.isSymbolicLink())
    throw new WorkspaceBrowserError('workspace.symlink', `${path} is a symbolic link; the browser shows links as links and never follows them.`, { path })
  if (stat.isDirectory()) throw new WorkspaceBrowserError('workspace.is_directory', `${path} is a folder, not a file.`, { path })
  if (!stat.isFile())
    throw new WorkspaceBrowserError(
      'workspace.not_regular_file',
      `${path} is not a regular file (a FIFO, socket or device); the browser shows regular files only.`,
      { path }
    )
  if (stat.nlink > 1) {
    throw new WorkspaceBrowserError(
      'workspace.hard_link',
      `${path} has ${stat.nlink} hard links; it may be a file outside the workspace, so the browser does not show it.`,
      { path, links: stat.nlink }
    )
  }
}

function changed(path: string): WorkspaceBrowserError {
  return new WorkspaceBrowserError('workspace.changed', `${path} changed while Airlock was reading it; refresh to see what is there now.`, { path })
}

function invalid(path: string, why: string): WorkspaceBrowserError {
  return new WorkspaceBrowserError('workspace.invalid_path', `The path ${JSON.stringify(path.slice(0, 200))} ${why}.`, { path: path.slice(0, 200) })
}

/** An open that failed, in the operator's words: what is there instead, looked at without following it. */
function refusal(error: unknown, at: string, components: readonly string[]): WorkspaceBrowserError {
  const path = components.join('/')
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return new WorkspaceBrowserError('workspace.not_found', `${path} does not exist.`, { path })
  if (code === 'ENAMETOOLONG') return new WorkspaceBrowserError('workspace.invalid_path', `${path} is too long a path.`, { path })
  if (code === 'ELOOP' || code === 'ENOTDIR') {
    const stat = (() => {
      try {
        return lstatSync(at)
      } catch {
        return undefined
      }
    })()
    if (stat?.isSymbolicLink())
      return new WorkspaceBrowserError('workspace.symlink', `${path} is a symbolic link; the browser shows links as links and never follows them.`, { path })
    if (!stat)
      return new WorkspaceBrowserError('workspace.changed', `${path} changed while Airlock was reading it; refresh to see what is there now.`, { path })
    return new WorkspaceBrowserError('workspace.not_directory', `${path} is not a folder.`, { path })
  }
  return new WorkspaceBrowserError('workspace.io_error', `${path} cannot be read: ${(error as Error).message}`, { path, errno: code })
}

/** The widest time a JavaScript Date can print (±8.64e15 ms, years -271821 to 275760). */
const printableMs = 8.64e15

/**
 * A file time as ISO text. Sandboxed code can set a file's mtime to any 64-bit value (tmpfs and
 * btrfs keep it), and `Date#toISOString` throws beyond the printable range: such times are
 * clamped to its ends, so one planted file cannot make a listing or `recent` fail.
 */
export function isoTime(ms: number): string {
  const clamped = Number.isFinite(ms) ? Math.max(-printableMs, Math.min(printableMs, ms)) : 0
  return new Date(clamped).toISOString()
}

/**
 * A file name as the browser shows it: UTF-8 names as they are; any other byte string with its
 * bytes escaped (`\\xff`) and `readable: false`, since two different byte names would otherwise
 * decode to the same text and a click on one would open the other.
 */
export function entryName(name: Buffer): { name: string; readable: boolean } {
  if (isUtf8(name)) return { name: name.toString('utf8'), readable: true }
  let shown = ''
  for (const byte of name) shown += byte >= 0x20 && byte < 0x7f && byte !== 0x5c ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`
  return { name: shown, readable: false }
}
