import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync } from 'node:fs'
import Database from 'better-sqlite3'
import * as sqliteVec from 'sqlite-vec'
import { VectorStoreError } from '../../core/live-resources/vector'

/** The SQLite `application_id` of an Airlock vector store ("AIRV"): how a store file is recognised. */
export const vectorStoreApplicationId = 0x41495256

/** The store schema version this code reads and writes (SQLite `user_version`). */
export const vectorStoreFormat = 1

const sqliteMagic = Buffer.from('SQLite format 3\0', 'latin1')

const schema = `
  create table if not exists vector_collections (
    id integer primary key,
    name text not null unique,
    dimension integer not null check (dimension between 1 and 4096),
    metric text not null check (metric in ('l2', 'cosine')),
    created_at text not null
  );
  create table if not exists vector_items (
    row integer primary key,
    collection_id integer not null references vector_collections (id),
    item_id text not null,
    metadata text not null,
    unique (collection_id, item_id)
  );
`

/**
 * Opens the store file at `path` (inside a directory only Airlock writes), creating it (mode 0600)
 * when absent. Anything else found there is refused with `vector_store.not_a_vector_store` and
 * left untouched: a symlink or non-regular file, a file whose SQLite header does not carry the
 * store's application id (read as bytes before SQLite opens it, so not even a hot journal of a
 * foreign database is rolled back), or a store of another format. sqlite-vec is loaded; schema
 * objects may not call side-effecting functions (`trusted_schema = OFF`).
 */
export function openStoreFile(path: string, options: { readOnly: boolean }): Database.Database {
  const fresh = ensureFile(path)
  const db = new Database(path, { fileMustExist: true })
  try {
    db.pragma('trusted_schema = OFF')
    db.pragma('busy_timeout = 5000')
    loadVectorExtension(db)
    if (fresh) initialise(db)
    verify(db, path)
    db.pragma('foreign_keys = ON')
    if (options.readOnly) db.pragma('query_only = ON')
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

/** Loads sqlite-vec into `db`, or fails with `vector_store.unavailable` saying why. */
export function loadVectorExtension(db: Database.Database): void {
  try {
    sqliteVec.load(db)
  } catch (error) {
    throw new VectorStoreError('unavailable', `sqlite-vec could not be loaded: ${(error as Error).message}`, {}, { cause: error })
  }
}

/** True when the file is new (absent, created now, or empty); throws when it is not a store file. */
function ensureFile(path: string): boolean {
  try {
    closeSync(openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600))
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const stat = lstatSync(path)
  if (!stat.isFile()) throw notAStore(path, stat.isSymbolicLink() ? 'it is a symbolic link' : 'it is not a regular file')
  const header = readHeader(path)
  if (header.length === 0) return true
  if (header.length < 100 || !header.subarray(0, 16).equals(sqliteMagic)) throw notAStore(path, 'it is not a SQLite database')
  const applicationId = header.readUInt32BE(68)
  if (applicationId !== vectorStoreApplicationId)
    throw notAStore(path, `its SQLite application id is ${applicationId}, not Airlock's vector store (${vectorStoreApplicationId})`)
  return false
}

function readHeader(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW)
  try {
    if (!fstatSync(fd).isFile()) throw notAStore(path, 'it is not a regular file')
    const header = Buffer.alloc(100)
    return header.subarray(0, readSync(fd, header, 0, 100, 0))
  } finally {
    closeSync(fd)
  }
}

/** Makes an empty file a store. Idempotent, so two openers racing on a new file both succeed. */
function initialise(db: Database.Database): void {
  // Set while the file is still in rollback mode, so the id lands in the main file's header at once.
  db.pragma(`application_id = ${vectorStoreApplicationId}`)
  db.pragma('journal_mode = WAL')
  db.transaction(() => {
    db.exec(schema)
    db.pragma(`user_version = ${vectorStoreFormat}`)
  }).immediate()
}

function verify(db: Database.Database, path: string): void {
  const applicationId = db.pragma('application_id', { simple: true }) as number
  if (applicationId !== vectorStoreApplicationId) throw notAStore(path, `its SQLite application id is ${applicationId}`)
  const format = db.pragma('user_version', { simple: true }) as number
  if (format !== vectorStoreFormat) throw notAStore(path, `it is store format ${format}, and this Airlock reads format ${vectorStoreFormat}`)
  const tables = db.prepare("select name from sqlite_master where type = 'table' and name in ('vector_collections', 'vector_items')").pluck().all()
  if (tables.length !== 2) throw notAStore(path, 'its collection tables are missing')
}

function notAStore(path: string, why: string): VectorStoreError {
  return new VectorStoreError(
    'not_a_vector_store',
    `${path} is not an Airlock vector store (${why}); it was left untouched. Move it away to start a new store.`,
    { path }
  )
}

/** Creates the stores' directory (mode 0700) if needed; refuses one that is a symlink or not a directory. */
export function ensureStoreDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 })
  const stat = lstatSync(directory)
  if (!stat.isDirectory())
    throw new VectorStoreError('not_a_vector_store', `${directory} must be a directory Airlock owns, not a symbolic link or a file.`, { path: directory })
}
