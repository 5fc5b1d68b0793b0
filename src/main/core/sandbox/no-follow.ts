import { AirlockError } from '@shared/errors'
import { closeSync, constants, fchownSync, fstatSync, lstatSync, mkdirSync, openSync, writeSync, type Stats } from 'node:fs'
import { isAbsolute, normalize, sep } from 'node:path'
import type { SandboxIdentity } from './sandbox-identity'

/**
 * File operations on workspace trees that a sandbox can write, made from directory descriptors
 * and never through a path the sandbox could have changed. Anything a sandbox can write (symlinks,
 * a directory swapped for a symlink by RENAME_EXCHANGE between a check and its use) is hostile to
 * the host side, which often runs as root.
 *
 * Node has no `openat`, so each step opens `/proc/self/fd/<dir>/<name>` with O_NOFOLLOW: the
 * kernel follows the descriptor's magic link to the very directory already open, looks `name` up
 * in it, and refuses (ELOOP) if `name` is a symlink. A walk of such steps never follows a symlink
 * on any component. Linux only (the sandboxes are too).
 */

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW
/**
 * O_PATH (Linux; Node does not export the constant): a descriptor that names a directory without
 * opening it for reading, so a walk needs only search permission on the directories above, as a
 * path lookup does (e.g. through a 0711 home).
 */
const O_PATH = 0o10000000
const pathOnlyFlags = O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW

/** A path that crossed a symlink or left its root: refused, with the component that did it. */
export class NoFollowError extends AirlockError<'sandbox.path_refused'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('sandbox.path_refused', message, {}, options)
  }
}

/** The path of an open descriptor, usable as the base of a next step (or as a bind source). */
export function descriptorPath(fd: number): string {
  return `/proc/self/fd/${fd}`
}

/** The components of a relative path; `..`, absolute paths and NUL are refused. */
export function relativeComponents(relativePath: string): string[] {
  if (relativePath.includes('\0') || isAbsolute(relativePath)) throw new NoFollowError(`${JSON.stringify(relativePath)} is not a relative path`)
  const parts = normalize(relativePath)
    .split(sep)
    .filter((part) => part !== '' && part !== '.')
  if (parts.includes('..')) throw new NoFollowError(`${JSON.stringify(relativePath)} leaves its directory`)
  return parts
}

/**
 * Opens `name` inside the open directory `dirFd` as a directory, refusing a symlink. `pathOnly`
 * gives an O_PATH descriptor (enough to walk on, to stat, or to bind), which needs no read permission.
 */
export function openChildDirectory(dirFd: number, name: string, options: { pathOnly?: boolean } = {}): number {
  const path = `${descriptorPath(dirFd)}/${name}`
  try {
    return openSync(path, options.pathOnly ? pathOnlyFlags : directoryFlags)
  } catch (error) {
    throw refusal(error, name, path)
  }
}

/**
 * Opens an absolute path as a directory descriptor, refusing a symlink on every component. Give it
 * real paths (operator-chosen roots resolved once); a symlink found here means something changed.
 */
export function openDirectoryNoFollow(absolutePath: string): number {
  if (!isAbsolute(absolutePath)) throw new NoFollowError(`${absolutePath} is not an absolute path`)
  return openBeneath(openSync('/', pathOnlyFlags), relativeComponents(absolutePath.slice(1)).join(sep), { closeBase: true })
}

/**
 * Opens `relativePath` below the open directory `baseFd` without following a symlink on any
 * component. `closeBase` hands `baseFd` over (it is closed either way); otherwise the caller keeps it.
 */
export function openBeneath(baseFd: number, relativePath: string, options: { closeBase?: boolean; create?: SandboxIdentity | 'host' } = {}): number {
  let current = baseFd
  let owned = options.closeBase === true
  const parts = relativeComponents(relativePath)
  try {
    for (const [index, part] of parts.entries()) {
      if (options.create) makeDirectory(current, part, options.create)
      // Directories on the way are only walked through; the last is opened for real (fchown, fstat, bind).
      const next = openChildDirectory(current, part, { pathOnly: index < parts.length - 1 })
      if (owned) closeSync(current)
      current = next
      owned = true
    }
    if (!owned || parts.length === 0) {
      const self = openChildDirectory(current, '.')
      if (owned) closeSync(current)
      return self
    }
    return current
  } catch (error) {
    if (owned) closeSync(current)
    throw error
  }
}

/** Creates directory `name` in `dirFd` unless it exists; a new one is given to `owner`. */
function makeDirectory(dirFd: number, name: string, owner: SandboxIdentity | 'host'): void {
  try {
    mkdirSync(`${descriptorPath(dirFd)}/${name}`, { mode: 0o755 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return
    throw refusal(error, name)
  }
  if (owner === 'host') return
  const fd = openChildDirectory(dirFd, name)
  try {
    giveTo(fd, owner)
  } finally {
    closeSync(fd)
  }
}

/** Makes a new directory `name` in `dirFd` (exclusive: an existing one is refused) and opens it. */
export function makeDirectoryExclusive(dirFd: number, name: string, owner: SandboxIdentity | 'host'): number {
  relativeComponents(name)
  mkdirSync(`${descriptorPath(dirFd)}/${name}`, { mode: 0o755 })
  const fd = openChildDirectory(dirFd, name)
  if (owner !== 'host') giveTo(fd, owner)
  return fd
}

/** Writes a new file `name` in `dirFd` (exclusive create, never through a symlink) and gives it to `owner`. */
export function writeNewFile(dirFd: number, name: string, bytes: Uint8Array, owner: SandboxIdentity | 'host'): void {
  const fd = openSync(`${descriptorPath(dirFd)}/${name}`, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644)
  try {
    if (owner !== 'host') giveTo(fd, owner)
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written)
  } finally {
    closeSync(fd)
  }
}

/** Opens a regular file `name` in `dirFd` for reading, refusing symlinks and anything not a regular file. */
export function openRegularFile(dirFd: number, name: string): { fd: number; stat: Stats } {
  let fd: number
  try {
    fd = openSync(`${descriptorPath(dirFd)}/${name}`, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    throw refusal(error, name)
  }
  const stat = fstatSync(fd)
  if (!stat.isFile()) {
    closeSync(fd)
    throw new NoFollowError(`${name} is not a regular file`)
  }
  return { fd, stat }
}

/** Hands an open file or directory to the sandbox identity (only when it is a dedicated one: Airlock is root). */
export function giveTo(fd: number, owner: SandboxIdentity): void {
  if (owner.dedicated) fchownSync(fd, owner.uid, owner.gid)
}

function refusal(error: unknown, name: string, path?: string): Error {
  const code = (error as NodeJS.ErrnoException).code
  // With O_DIRECTORY the kernel reports a final symlink as ENOTDIR: look before saying which.
  const isLink = code === 'ELOOP' || (code === 'ENOTDIR' && path !== undefined && isSymbolicLink(path))
  if (isLink) return new NoFollowError(`${name} is a symbolic link; Airlock does not follow links the workspace can plant`)
  if (code === 'ENOTDIR') return new NoFollowError(`${name} is not a directory`)
  return error as Error
}

function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

/**
 * Walks down from the open folder `startFd` (which it takes over) one step per part: `step` opens
 * the next folder from the current one, or says undefined to stop (the walk then returns undefined).
 * Each folder is closed once the next is open, and the current one on any throw.
 */
export function descendFolders<T>(startFd: number, parts: readonly T[], step: (fd: number, part: T, index: number) => number | undefined): number | undefined {
  let fd = startFd
  try {
    for (const [index, part] of parts.entries()) {
      const next = step(fd, part, index)
      if (next === undefined) {
        closeSync(fd)
        return undefined
      }
      closeSync(fd)
      fd = next
    }
    return fd
  } catch (error) {
    closeSync(fd)
    throw error
  }
}
