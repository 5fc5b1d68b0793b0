import { AirlockError } from '@shared/errors'
import { randomBytes } from 'node:crypto'
import { closeSync, constants, fsyncSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { descriptorPath, giveTo, NoFollowError, openBeneath, openDirectoryNoFollow, openRegularFile, relativeComponents, sandboxIdentity } from '../../core'
import { WorkspaceBoundaryError } from '../../core/sandbox/workspace-paths'

/** The largest database file the provider loads into memory (and lets grow to): 256 MiB. */
export const maxDatabaseBytes = 256 * 1024 * 1024

/** Why a database file inside the workspace cannot be used as it is; the message says what to do. */
export type SqliteFileErrorCode = 'sqlite.wal_pending' | 'sqlite.hot_journal' | 'sqlite.too_large' | 'sqlite.write_back_failed'

/** A database file the provider will not load or could not write back (see `SqliteFileErrorCode`). */
export class SqliteFileError extends AirlockError<SqliteFileErrorCode> {
  constructor(code: SqliteFileErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, {}, options)
  }
}

/** The first bytes of a rollback journal that still holds a transaction (SQLite's `aJournalMagic`). */
const journalMagic = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7])

/**
 * A database file of the workspace, held through descriptors and never through a path SQLite (or
 * anyone) resolves again: its folder is opened from the workspace root with no symbolic link on any
 * component, the file itself with O_NOFOLLOW, and its bytes are read here and handed to SQLite as an
 * in-memory image. A write goes back as a whole new file renamed over the name inside the held
 * folder (rename replaces whatever the name is, and follows nothing).
 */
export class DatabaseFile {
  private constructor(
    private folderFd: number | undefined,
    private readonly name: string,
    readonly relative: string,
    /** The file's bytes as read (empty for a missing or empty file). */
    readonly bytes: Buffer,
    /** The file-format bytes 18 and 19 as read; 2 means WAL mode, which an in-memory image cannot be in. */
    private readonly formatVersions: readonly [number, number] | undefined
  ) {}

  /**
   * Opens `relative` below the workspace `root` and reads it. Refused: a symbolic link on any
   * component, anything but a regular file, a file with another hard link (it may be a file outside),
   * a file over `maxDatabaseBytes`, a non-empty `-wal` (commits the image would lack) and a rollback
   * journal holding a transaction. A missing file is an empty database unless `mustExist`.
   */
  static open(root: string, relative: string, options: { mustExist: boolean }): DatabaseFile {
    const parts = componentsOf(relative)
    const name = parts.at(-1)!
    const folderFd = openFolder(root, parts.slice(0, -1), relative)
    try {
      refusePendingSidecars(folderFd, name, relative)
      const bytes = readDatabase(folderFd, name, relative, options.mustExist)
      const formatVersions = bytes.length >= 20 ? ([bytes[18]!, bytes[19]!] as const) : undefined
      return new DatabaseFile(folderFd, name, relative, bytes, formatVersions)
    } catch (error) {
      closeSync(folderFd)
      throw error
    }
  }

  /** The bytes to give SQLite: the file's, with WAL mode switched off in the copy (SQLite cannot open a WAL image in memory). */
  imageForSqlite(): Buffer {
    if (!this.formatVersions || (this.formatVersions[0] !== 2 && this.formatVersions[1] !== 2)) return this.bytes
    const image = Buffer.from(this.bytes)
    image[18] = Math.min(image[18]!, 1)
    image[19] = Math.min(image[19]!, 1)
    return image
  }

  /**
   * Writes `serialized` (the in-memory database) back when it differs from what was read: a new
   * file in the held folder (exclusive, no-follow, owned by the sandbox identity, synced) renamed
   * over the name. The file's journal mode (WAL or not) is kept. Returns whether it wrote.
   */
  saveIfChanged(serialized: Buffer): boolean {
    if (this.folderFd === undefined) throw new SqliteFileError('sqlite.write_back_failed', `the database ${this.relative} is closed`)
    if (this.formatVersions && serialized.length >= 20) {
      serialized[18] = this.formatVersions[0]
      serialized[19] = this.formatVersions[1]
    }
    if (serialized.equals(this.bytes)) return false
    const folder = descriptorPath(this.folderFd)
    const temporary = `.airlock-sqlite-${randomBytes(12).toString('hex')}.tmp`
    try {
      writeNewSyncedFile(`${folder}/${temporary}`, serialized)
      renameSync(`${folder}/${temporary}`, `${folder}/${this.name}`)
    } catch (error) {
      try {
        unlinkSync(`${folder}/${temporary}`)
      } catch {
        // Never created, or already renamed: nothing to take back.
      }
      throw new SqliteFileError(
        'sqlite.write_back_failed',
        `the changes to ${this.relative} could not be written back (the file is unchanged): ${(error as Error).message}`,
        { cause: error }
      )
    }
    return true
  }

  /** Lets go of the folder. */
  close(): void {
    if (this.folderFd === undefined) return
    closeSync(this.folderFd)
    this.folderFd = undefined
  }
}

function componentsOf(relative: string): string[] {
  let parts: string[]
  try {
    parts = relativeComponents(relative)
  } catch (error) {
    throw new WorkspaceBoundaryError(`the database ${(error as Error).message}`)
  }
  if (parts.length === 0) throw new WorkspaceBoundaryError('the database must name a file inside the workspace')
  return parts
}

function openFolder(root: string, folders: string[], relative: string): number {
  try {
    return openBeneath(openDirectoryNoFollow(root), folders.join('/'), { closeBase: true })
  } catch (error) {
    if (error instanceof NoFollowError) throw new WorkspaceBoundaryError(`the folder of the database ${relative} is refused: ${error.message}`)
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new WorkspaceBoundaryError(`the folder of ${relative} does not exist inside the workspace`)
    throw error
  }
}

/** Opens `name` in `folderFd` no-follow; undefined when it does not exist. */
function openIfPresent(folderFd: number, name: string, relative: string): ReturnType<typeof openRegularFile> | undefined {
  try {
    return openRegularFile(folderFd, name)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    if (error instanceof NoFollowError) throw new WorkspaceBoundaryError(`the database ${relative} is refused: ${error.message}`)
    throw error
  }
}

/**
 * SQLite keeps commits in `<name>-wal` until a checkpoint, and an unfinished transaction's original
 * pages in `<name>-journal`: the image of the file alone would lack them (or be half-written).
 */
function refusePendingSidecars(folderFd: number, name: string, relative: string): void {
  const wal = openIfPresent(folderFd, `${name}-wal`, relative)
  if (wal) {
    closeSync(wal.fd)
    if (wal.stat.size > 0) {
      throw new SqliteFileError(
        'sqlite.wal_pending',
        `the database ${relative} is in WAL mode and ${relative}-wal holds commits not yet in the file; checkpoint it first (run_command: sqlite3 ${relative} 'PRAGMA wal_checkpoint(TRUNCATE)'), then query again`
      )
    }
  }
  const journal = openIfPresent(folderFd, `${name}-journal`, relative)
  if (!journal) return
  const head = Buffer.alloc(journalMagic.length)
  try {
    readSync(journal.fd, head, 0, head.length, 0)
  } finally {
    closeSync(journal.fd)
  }
  if (head.equals(journalMagic)) {
    throw new SqliteFileError(
      'sqlite.hot_journal',
      `the database ${relative} has a rollback journal holding a transaction (${relative}-journal: a write in progress, or one that crashed); let it finish or roll it back (run_command: sqlite3 ${relative} 'select 1'), then query again`
    )
  }
}

function readDatabase(folderFd: number, name: string, relative: string, mustExist: boolean): Buffer {
  const opened = openIfPresent(folderFd, name, relative)
  if (!opened) {
    if (mustExist) throw new WorkspaceBoundaryError(`the database ${relative} does not exist (a read-only connection does not create it)`)
    return Buffer.alloc(0)
  }
  const { fd, stat } = opened
  try {
    if (stat.nlink > 1)
      throw new WorkspaceBoundaryError(
        `the database ${relative} has ${stat.nlink} hard links; one of them may be a file outside the workspace, so it is not opened`
      )
    if (stat.size > maxDatabaseBytes) throw tooLarge(relative, stat.size)
    const chunks: Buffer[] = []
    let total = 0
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(16 * 1024 * 1024, maxDatabaseBytes + 1 - total))
      const read = readSync(fd, chunk, 0, chunk.length, null)
      if (read === 0) break
      chunks.push(chunk.subarray(0, read))
      total += read
      // The file grew while it was read.
      if (total > maxDatabaseBytes) throw tooLarge(relative, total)
    }
    return Buffer.concat(chunks, total)
  } finally {
    closeSync(fd)
  }
}

function tooLarge(relative: string, size: number): SqliteFileError {
  return new SqliteFileError(
    'sqlite.too_large',
    `the database ${relative} is ${size} bytes; sqlite_query loads databases of at most ${maxDatabaseBytes} bytes (use run_command with sqlite3 for larger ones)`
  )
}

/** A new file at `path` (exclusive create, never through a symbolic link), given to the sandbox identity and synced to disk. */
function writeNewSyncedFile(path: string, bytes: Buffer): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644)
  try {
    giveTo(fd, sandboxIdentity())
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
