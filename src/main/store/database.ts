import { chmodSync, existsSync, statSync } from 'node:fs'
import Database from 'better-sqlite3'
import { latestSchemaVersion, migrations as defaultMigrations, type Migration } from './migrations'
import { StoreError } from './store-error'

/** How to open the store; `nativeBinding` lets Electron load a build made for its own ABI. */
export type OpenDatabaseOptions = {
  nativeBinding?: string
  /** How long to wait for another writer before giving up (ms). */
  busyTimeoutMs?: number
  /** Only for tests of the upgrade path: the migrations to apply (default: all). */
  migrations?: readonly Migration[]
}

/**
 * Opens (or creates) the Airlock database: checks that an existing file is an Airlock database
 * this build understands before writing anything, applies pending migrations in one immediate
 * transaction each, then turns on WAL and foreign keys.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database.Database {
  const migrations = options.migrations ?? defaultMigrations
  const known = migrations.at(-1)?.version ?? 0
  const existed = existsSync(file)
  let db: Database.Database
  try {
    db = new Database(file, {
      timeout: options.busyTimeoutMs ?? 5000,
      ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {})
    })
  } catch (error) {
    throw new StoreError('store.unavailable', `Cannot open the database ${file}: ${messageOf(error)}.`, {
      cause: error
    })
  }
  try {
    ownerOnly(file)
    const current = existed ? readSchemaVersion(db, file) : 0
    if (current > known) {
      throw new StoreError(
        'store.too_new',
        `The database ${file} has schema version ${current}, but this Airlock knows up to ${known}. ` +
          'Use a newer Airlock, or point --home at another directory.'
      )
    }
    applyMigrations(db, file, migrations, current)
    db.pragma('journal_mode = WAL')
    db.pragma('foreign_keys = ON')
    db.pragma('synchronous = NORMAL')
    return db
  } catch (error) {
    db.close()
    if (error instanceof StoreError) throw error
    throw translate(error, file)
  }
}

/** Reads the applied schema version without writing; refuses files that are not ours. */
function readSchemaVersion(db: Database.Database, file: string): number {
  let tables: string[]
  try {
    tables = db.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[]
  } catch (error) {
    throw translate(error, file)
  }
  if (tables.length === 0) return 0
  if (!tables.includes('schema_version')) {
    throw new StoreError(
      'store.corrupt',
      `${file} is a SQLite database but not an Airlock database (no schema_version table). ` + 'Move it aside or point --home at another directory.'
    )
  }
  const version = db.prepare('select max(version) from schema_version').pluck().get() as number | null
  return version ?? 0
}

function applyMigrations(db: Database.Database, file: string, migrations: readonly Migration[], current: number): void {
  // Taking the write lock first, even with nothing to apply, proves the store is writable now:
  // a locked database fails here, before anything has changed.
  const step = db.transaction((migration?: Migration) => {
    if (!migration) return
    migration.up(db)
    db.prepare('insert into schema_version (version, name, applied_at) values (?, ?, ?)').run(migration.version, migration.name, new Date().toISOString())
  })
  try {
    if (current === 0) {
      db.transaction(() => {
        db.exec('create table if not exists schema_version (version integer primary key, name text not null, applied_at text not null)')
      }).immediate()
    }
    const pending = migrations.filter((m) => m.version > current)
    if (pending.length === 0) step.immediate(undefined)
    for (const migration of pending) step.immediate(migration)
  } catch (error) {
    throw translate(error, file)
  }
}

function translate(error: unknown, file: string): StoreError {
  const code = (error as { code?: string }).code ?? ''
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StoreError('store.locked', `The database ${file} is locked by another process. Close the other Airlock or tool using it and try again.`, {
      cause: error
    })
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new StoreError(
      'store.corrupt',
      `${file} is not a readable Airlock database (${messageOf(error)}). ` + 'Move it aside (or restore a backup) and start again; it was not modified.',
      { cause: error }
    )
  }
  return new StoreError('store.unavailable', `Cannot use the database ${file}: ${messageOf(error)}.`, {
    cause: error
  })
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

export { latestSchemaVersion }

/**
 * The database holds upstream MCP credentials and the whole history: only its owner may read it.
 * SQLite creates `-wal` and `-shm` with the database file's mode, so the file is narrowed first;
 * ones already there (an older Airlock made them 0644) are narrowed too. A file owned by someone
 * else (opened read-write by root, say) is left as its owner keeps it.
 */
function ownerOnly(file: string): void {
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if ((statSync(path).mode & 0o077) !== 0 && statSync(path).uid === process.getuid?.()) chmodSync(path, 0o600)
    } catch {
      // Absent (no WAL yet), or not ours to change.
    }
  }
}
