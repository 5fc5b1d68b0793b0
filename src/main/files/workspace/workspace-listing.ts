import { isUtf8 } from 'node:buffer'
import { constants, type Dirent } from 'node:fs'
import { open, readdir, type FileHandle } from 'node:fs/promises'
import { descriptorPath } from '../../core/sandbox'

/** What a folder entry is, as the agent sees it (links are reported, never followed). */
export type EntryType = 'file' | 'directory' | 'symlink' | 'other'

/**
 * One entry of a workspace folder: its name as text (`validName` false when the name is not
 * UTF-8: the text then has U+FFFD in place of the bad bytes and cannot be used as a path) and
 * its raw bytes (what Airlock itself uses to reach it).
 */
export type DirectoryEntry = { name: string; raw: Buffer; validName: boolean; type: EntryType }

/** Reads an open folder's entries, sorted by their bytes (a stable order for results). */
export async function readDirectory(fd: number): Promise<DirectoryEntry[]> {
  const dirents = (await readdir(descriptorPath(fd), { withFileTypes: true, encoding: 'buffer' })) as unknown as Dirent<Buffer>[]
  return dirents
    .map((dirent) => ({ name: dirent.name.toString('utf8'), raw: dirent.name, validName: isUtf8(dirent.name), type: typeOf(dirent) }))
    .sort((a, b) => Buffer.compare(a.raw, b.raw))
}

/** The path of entry `raw` inside the open folder `fd` (through /proc/self/fd, so nothing above is looked up again). */
export function childPath(fd: number, raw: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${descriptorPath(fd)}/`), raw])
}

/** Opens folder `raw` inside the open folder `fd` without following a link; undefined when it is no longer a folder. */
export async function openChildDirectory(fd: number, raw: Buffer): Promise<FileHandle | undefined> {
  try {
    return await open(childPath(fd, raw), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT' || code === 'EACCES') return undefined
    throw error
  }
}

function typeOf(dirent: Dirent<Buffer>): EntryType {
  if (dirent.isFile()) return 'file'
  if (dirent.isDirectory()) return 'directory'
  if (dirent.isSymbolicLink()) return 'symlink'
  return 'other'
}
