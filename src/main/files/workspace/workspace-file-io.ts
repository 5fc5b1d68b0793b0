import { randomBytes } from 'node:crypto'
import { closeSync, constants, fchmodSync, fstatSync, openSync, read, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs'
import { descriptorPath, giveTo, type SandboxIdentity } from '../../core/sandbox'
import { joinComponents } from './workspace-path'
import { closeWorkspace, openWorkspace, resolveEntry, type ResolvedEntry, type WorkspaceRoot } from './workspace-resolver'
import { asWorkspaceFileError, WorkspaceFileError } from './workspace-file-error'

/** An open regular file of the workspace, the entry it was found at, and its fstat (the caller closes both). */
export type OpenedFile = { fd: number; stat: Stats; entry: ResolvedEntry & { name: string } }

/** How many times a file that keeps changing kind while it is opened is resolved again before giving up. */
const openAttempts = 3

/** The name at `/.exec_history` (one JSON line per call, the host's record): the file actions never write it. */
export const historyFile = '.exec_history'

/**
 * Runs `use` on one file of an agent's workspace (`openWorkspaceFile` on the path's components)
 * and closes the file, its folder and the workspace whatever `use` does.
 */
export async function withWorkspaceFile<T>(workspace: string, components: readonly string[], use: (file: OpenedFile) => Promise<T>): Promise<T> {
  const root = openWorkspace(workspace)
  try {
    const file = openWorkspaceFile(root, components)
    try {
      return await use(file)
    } finally {
      closeSync(file.fd)
      closeSync(file.entry.dirFd)
    }
  } finally {
    closeWorkspace(root)
  }
}

/**
 * Opens a workspace file for reading: resolved race-safely, opened O_NOFOLLOW (a link swapped in
 * after the look is seen, never followed) and O_NONBLOCK; refuses anything but a regular file
 * (FIFOs, devices, sockets, folders) and a regular file with more than one link (a hard link may
 * be a file outside the workspace).
 */
export function openWorkspaceFile(root: WorkspaceRoot, components: readonly string[]): OpenedFile {
  for (let attempt = 1; ; attempt++) {
    const entry = resolveEntry(root, components, { parents: 'require' })
    try {
      const named = assertFileEntry(entry)
      let fd: number
      try {
        fd = openSync(`${descriptorPath(entry.dirFd)}/${named.name}`, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if ((code === 'ELOOP' || code === 'ENOENT') && attempt < openAttempts) {
          closeSync(entry.dirFd)
          continue
        }
        throw asWorkspaceFileError(error, joinComponents(entry.components))
      }
      const stat = fstatSync(fd)
      try {
        assertPlainFile(stat, entry.components)
      } catch (error) {
        closeSync(fd)
        throw error
      }
      return { fd, stat, entry: named }
    } catch (error) {
      closeSync(entry.dirFd)
      throw error
    }
  }
}

/** Refuses an entry that is not (now) a regular file: missing, a folder, a FIFO/device/socket, or hard-linked. */
export function assertFileEntry(entry: ResolvedEntry): ResolvedEntry & { name: string } {
  const path = joinComponents(entry.components)
  if (entry.name === undefined || entry.stat?.isDirectory()) throw new WorkspaceFileError('is_directory', `${path} is a folder, not a file.`, { path })
  if (!entry.stat) throw new WorkspaceFileError('not_found', `${path} does not exist.`, { path })
  assertPlainFile(entry.stat, entry.components)
  return entry as ResolvedEntry & { name: string }
}

/** Refuses what a file action must not read or replace: anything but a regular file with a single link. */
export function assertPlainFile(stat: Stats, components: readonly string[]): void {
  const path = joinComponents(components)
  if (stat.isDirectory()) throw new WorkspaceFileError('is_directory', `${path} is a folder, not a file.`, { path })
  if (!stat.isFile())
    throw new WorkspaceFileError('not_regular_file', `${path} is not a regular file (a FIFO, socket or device); the file actions handle regular files only.`, {
      path
    })
  if (stat.nlink > 1) {
    throw new WorkspaceFileError(
      'hard_link',
      `${path} has ${stat.nlink} hard links; it may be a file outside the workspace, so the file actions refuse it. Copy it to a new file first.`,
      { path, links: stat.nlink }
    )
  }
}

/** Refuses a write to the host's own record of calls at the workspace root. */
export function assertWritableName(components: readonly string[]): void {
  if (components.length === 1 && components[0] === historyFile) {
    throw new WorkspaceFileError('reserved_path', `${historyFile} is Airlock's record of this agent's calls; the file actions do not write it.`, {
      path: historyFile
    })
  }
}

/** Reads `length` bytes at `position` of an open file (fewer at its end), without blocking the main thread. */
export function readAt(fd: number, length: number, position: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length)
  return new Promise((resolve, reject) => {
    const step = (filled: number) => {
      if (filled === length) return resolve(buffer)
      read(fd, buffer, filled, length - filled, position + filled, (error, bytes) => {
        if (error) return reject(error)
        if (bytes === 0) return resolve(buffer.subarray(0, filled))
        step(filled + bytes)
      })
    }
    step(0)
  })
}

/** Reads a whole open file of at most `maxBytes` (`too_large` if it holds more). */
export async function readWhole(fd: number, stat: Stats, maxBytes: number, components: readonly string[]): Promise<Buffer> {
  const path = joinComponents(components)
  const tooLarge = (bytes: number) =>
    new WorkspaceFileError('too_large', `${path} is ${bytes} bytes; the file actions edit files of at most ${maxBytes} bytes.`, {
      path,
      bytes,
      limit: maxBytes
    })
  if (stat.size > maxBytes) throw tooLarge(stat.size)
  // One byte more than fstat said tells a file that grew since; then read on, up to the limit.
  const first = await readAt(fd, stat.size + 1, 0)
  if (first.length <= stat.size) return first
  const bytes = Buffer.concat([first, await readAt(fd, maxBytes + 1 - first.length, first.length)])
  if (bytes.length > maxBytes) throw tooLarge(bytes.length)
  return bytes
}

/**
 * Replaces (or creates) file `name` in the verified directory `dirFd` with `bytes`: a new file is
 * written beside it (exclusive create, no-follow, given to `owner`, `mode`) and renamed over the
 * name. Nothing is ever written through an existing file, so a link planted there (symbolic or
 * hard) is replaced, never followed, and a reader sees the old file or the new one, nothing between.
 */
export function replaceFile(
  dirFd: number,
  name: string,
  bytes: Uint8Array,
  options: { mode: number; owner: SandboxIdentity | 'host'; components: readonly string[] }
): void {
  const base = descriptorPath(dirFd)
  const { temp, fd } = createTemp(base)
  try {
    try {
      if (options.owner !== 'host') giveTo(fd, options.owner)
      fchmodSync(fd, options.mode & 0o777)
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written)
    } finally {
      closeSync(fd)
    }
    renameSync(`${base}/${temp}`, `${base}/${name}`)
  } catch (error) {
    try {
      unlinkSync(`${base}/${temp}`)
    } catch {
      // Already renamed or gone.
    }
    throw asWorkspaceFileError(error, joinComponents(options.components))
  }
}

/** A new temporary file in `base`: short (a long name plus a suffix could pass NAME_MAX) and unguessable. */
function createTemp(base: string): { temp: string; fd: number } {
  for (let attempt = 0; ; attempt++) {
    const temp = `.airlock-write-${randomBytes(8).toString('hex')}`
    try {
      return { temp, fd: openSync(`${base}/${temp}`, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600) }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error
    }
  }
}
