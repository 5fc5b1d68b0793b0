import { AirlockError } from '@shared/errors'
import { closeSync, lstatSync, realpathSync, type Stats } from 'node:fs'
import { descriptorPath, NoFollowError, openBeneath, openDirectoryNoFollow, relativeComponents } from '../../core'

/**
 * A database path that cannot be used: `path_refused` (outside the workspace, through a symbolic
 * link, not a file, changed under the call) or `folder_missing` (its folder does not exist).
 */
export class DatabasePathError extends AirlockError<'sqlite_query.path_refused' | 'sqlite_query.folder_missing'> {
  constructor(message: string, code: 'sqlite_query.path_refused' | 'sqlite_query.folder_missing' = 'sqlite_query.path_refused') {
    super(code, message)
  }
}

/** Where a database is, as seen through directory descriptors at one moment: its path relative to the workspace, and whether the file exists. */
export type DatabaseLocation = { relative: string; exists: boolean }

/**
 * Finds `database` (relative to the agent's workspace) without following a symbolic link on any
 * component, to answer with the right refusal before anything is opened: Airlock's own `.airlock/`
 * is refused, a link or a missing folder is named, and a missing file is not an error (a read runs
 * on an empty database, a write creates it). It decides nothing about safety: the sqlite provider
 * opens the file again through descriptors and never lets SQLite resolve a workspace path, so a
 * folder swapped after this look is refused (or found inside the workspace) at the open.
 */
export function locateDatabase(workspace: string, database: string): DatabaseLocation {
  const parts = componentsOf(database)
  const root = realpathSync(workspace)
  const folderFd = openFolder(root, parts.slice(0, -1))
  try {
    const name = parts.at(-1)!
    return { relative: parts.join('/'), exists: fileExists(folderFd, name, database) }
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
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new DatabasePathError(`the folder ${folders.join('/')} does not exist in the workspace`, 'sqlite_query.folder_missing')
    throw error
  }
}

function fileExists(folderFd: number, name: string, database: string): boolean {
  let stat: Stats
  try {
    stat = lstatSync(`${descriptorPath(folderFd)}/${name}`)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
  if (stat.isSymbolicLink()) throw new DatabasePathError(`${database} is a symbolic link; Airlock does not follow links the workspace can plant`)
  if (!stat.isFile()) throw new DatabasePathError(`${database} is not a regular file`)
  return true
}
