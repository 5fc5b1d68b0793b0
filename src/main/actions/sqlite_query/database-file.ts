import { closeSync, fstatSync, lstatSync, realpathSync, type Stats } from 'node:fs'
import { join } from 'node:path'
import { descriptorPath, giveTo, NoFollowError, openBeneath, openDirectoryNoFollow, openRegularFile, relativeComponents, sandboxIdentity } from '../../core'
import type { SqliteDatabase } from '../../core/live-resources-data'

/**
 * A database path that cannot be used: `path_refused` (outside the workspace, through a symbolic
 * link, not a file, changed under the call) or `folder_missing` (its folder does not exist).
 */
export class DatabasePathError extends Error {
  override readonly name = 'DatabasePathError'

  constructor(
    message: string,
    readonly code: 'sqlite_query.path_refused' | 'sqlite_query.folder_missing' = 'sqlite_query.path_refused'
  ) {
    super(message)
  }
}

/** The identity of a file or folder: it is the same one when both numbers match. */
type Identity = { dev: number; ino: number }

/**
 * Where a database is, as seen through directory descriptors at one moment: its path relative to
 * the workspace, its real path, and the identity of its folder and (when it exists) of the file.
 */
export type DatabaseLocation = { relative: string; realPath: string; folder: Identity; file?: Identity }

/**
 * Finds `database` (relative to the agent's workspace) without following a symbolic link on any
 * component: the workspace is writable by the agent's sandboxes, so a link or a swapped folder
 * could point anywhere. Airlock's own `.airlock/` is refused. A missing file is not an error
 * (a write may create it); a missing folder is.
 */
export function locateDatabase(workspace: string, database: string): DatabaseLocation {
  const parts = componentsOf(database)
  const root = realpathSync(workspace)
  const folderFd = openFolder(root, parts.slice(0, -1))
  try {
    const name = parts.at(-1)!
    const file = fileAt(folderFd, name, database)
    return { relative: parts.join('/'), realPath: join(root, ...parts), folder: identityOf(fstatSync(folderFd)), ...(file ? { file } : {}) }
  } finally {
    closeSync(folderFd)
  }
}

/**
 * Proves that a connection opened the database `before` described: SQLite's own record of the file
 * it opened (`pragma_database_list`, symbolic links already resolved by SQLite) must be the real
 * path, and a fresh walk must find the same folder and the same file (or, for a file the
 * connection created, a regular file in the same folder). Anything else means the path changed
 * between the check and the open: the connection is not used.
 */
export function verifyOpened(db: SqliteDatabase, workspace: string, before: DatabaseLocation): void {
  const listed = db.query("select file from pragma_database_list where name = 'main'")
  const opened = listed.status === 'ok' ? listed.rows[0]?.file : undefined
  if (opened !== before.realPath) throw new DatabasePathError(`the database ${before.relative} changed while it was being opened (SQLite opened another file): it was not used`)
  const after = locateDatabase(workspace, before.relative)
  const sameFolder = same(after.folder, before.folder)
  const sameFile = before.file ? after.file !== undefined && same(after.file, before.file) : after.file !== undefined
  if (!sameFolder || !sameFile) throw new DatabasePathError(`the database ${before.relative} was replaced while it was being opened: it was not used`)
}

/**
 * Gives a database file the connection just created to the sandbox identity (when Airlock runs as
 * root and sandboxes as their own uid), so that the agent's own programs can still use it.
 */
export function giveNewDatabaseToSandbox(workspace: string, location: DatabaseLocation): void {
  const identity = sandboxIdentity()
  if (!identity.dedicated) return
  const parts = location.relative.split('/')
  const folderFd = openFolder(realpathSync(workspace), parts.slice(0, -1))
  try {
    const { fd } = openRegularFile(folderFd, parts.at(-1)!)
    try {
      giveTo(fd, identity)
    } finally {
      closeSync(fd)
    }
  } finally {
    closeSync(folderFd)
  }
}

function componentsOf(database: string): string[] {
  let parts: string[]
  try {
    parts = relativeComponents(database)
  } catch (error) {
    throw new DatabasePathError(`database ${(error as Error).message}`)
  }
  if (parts.length === 0) throw new DatabasePathError('database must name a file inside the workspace')
  if (parts[0] === '.airlock') throw new DatabasePathError("database must not be inside .airlock/, Airlock's own folder in the workspace")
  return parts
}

function openFolder(root: string, folders: string[]): number {
  try {
    return openBeneath(openDirectoryNoFollow(root), folders.join('/'), { closeBase: true })
  } catch (error) {
    if (error instanceof NoFollowError) throw new DatabasePathError(`the folder of the database is refused: ${error.message}`)
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new DatabasePathError(`the folder ${folders.join('/')} does not exist in the workspace`, 'sqlite_query.folder_missing')
    throw error
  }
}

function fileAt(folderFd: number, name: string, database: string): Identity | undefined {
  let stat: Stats
  try {
    stat = lstatSync(`${descriptorPath(folderFd)}/${name}`)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  if (stat.isSymbolicLink()) throw new DatabasePathError(`${database} is a symbolic link; Airlock does not follow links the workspace can plant`)
  if (!stat.isFile()) throw new DatabasePathError(`${database} is not a regular file`)
  return identityOf(stat)
}

function identityOf(stat: Stats): Identity {
  return { dev: stat.dev, ino: stat.ino }
}

function same(a: Identity, b: Identity): boolean {
  return a.dev === b.dev && a.ino === b.ino
}
