import { createHash } from 'node:crypto'
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../test/support/temp-home'
import { latestSchemaVersion, openDatabase } from './database'
import { migrations, type Migration } from './migrations'
import { StoreError } from './store-error'

const specTables = ['agents', 'roles', 'sessions', 'approvals', 'rules', 'action_calls', 'events', 'handles', 'skills', 'settings']

let dir: ReturnType<typeof makeTempDir>
let file: string
beforeEach(() => {
  dir = makeTempDir()
  file = join(dir.path, 'airlock.db')
})
afterEach(() => dir.remove())

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')
const tablesOf = (db: Database.Database) => db.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[]

function expectStoreError(run: () => unknown, code: string, messagePart: RegExp): void {
  let caught: unknown
  try {
    run()
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(StoreError)
  expect((caught as StoreError).code).toBe(code)
  expect((caught as StoreError).message).toMatch(messagePart)
}

describe('store file modes', () => {
  it('the database and its WAL are readable by their owner only, also when an older Airlock left them 0644', () => {
    const file = join(dir.path, 'airlock.db')
    const db = openDatabase(file)
    db.prepare('create table t (x)').run()
    db.prepare('insert into t values (1)').run()
    const modes = () => [file, `${file}-wal`, `${file}-shm`].filter(existsSync).map((path) => statSync(path).mode & 0o777)
    expect(modes().length).toBeGreaterThanOrEqual(2)
    expect(modes().every((mode) => mode === 0o600)).toBe(true)
    db.close()
    chmodSync(file, 0o644)
    openDatabase(file).close()
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })
})

describe('store migrations', () => {
  it('creates a fresh database at the latest version with every spec table, WAL and foreign keys', () => {
    const db = openDatabase(file)
    expect(db.prepare('select max(version) from schema_version').pluck().get()).toBe(latestSchemaVersion)
    expect(tablesOf(db)).toEqual(expect.arrayContaining(specTables))
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
    expect(() => db.prepare("insert into sessions (id, agent_id, transport, started_at) values ('s', 'nobody', 'http', 'now')").run()).toThrow(/FOREIGN KEY/)
    db.close()
  })

  it('runs each migration once across reopenings', () => {
    openDatabase(file).close()
    openDatabase(file).close()
    const db = openDatabase(file)
    expect(db.prepare('select count(*) from schema_version').pluck().get()).toBe(migrations.length)
    db.close()
  })

  for (let from = 0; from < latestSchemaVersion; from++) {
    it(`upgrades a database at version ${from} to ${latestSchemaVersion}, keeping its rows`, () => {
      const old = openDatabase(file, { migrations: migrations.filter((m) => m.version <= from) })
      if (from >= 1) old.prepare("insert into settings (key, value_json, updated_at) values ('k', '1', 'then')").run()
      old.close()
      const db = openDatabase(file)
      expect(db.prepare('select max(version) from schema_version').pluck().get()).toBe(latestSchemaVersion)
      expect(tablesOf(db)).toEqual(expect.arrayContaining(specTables))
      if (from >= 1) expect(db.prepare("select value_json from settings where key = 'k'").pluck().get()).toBe('1')
      db.close()
    })
  }

  it('rolls a failing migration back whole and reports it', () => {
    const broken: Migration[] = [
      ...migrations,
      {
        version: latestSchemaVersion + 1,
        name: 'broken',
        up: (db) => db.exec('create table half_done (x integer); insert into nowhere values (1);')
      }
    ]
    openDatabase(file).close()
    expect(() => openDatabase(file, { migrations: broken })).toThrow(StoreError)
    const db = new Database(file)
    expect(tablesOf(db)).not.toContain('half_done')
    expect(db.prepare('select max(version) from schema_version').pluck().get()).toBe(latestSchemaVersion)
    db.close()
  })

  it('refuses a corrupt file with a clear error and leaves it untouched', () => {
    writeFileSync(file, Buffer.from('this is not a database, just bytes '.repeat(200)))
    const before = digest(file)
    expectStoreError(() => openDatabase(file), 'store.corrupt', /not a readable Airlock database.*not modified/)
    expect(digest(file)).toBe(before)
    expect(readdirSync(dir.path)).toEqual(['airlock.db'])
  })

  it('refuses a database from a newer Airlock and leaves it untouched', () => {
    openDatabase(file).close()
    const raw = new Database(file)
    raw.prepare("insert into schema_version (version, name, applied_at) values (?, 'future', 'later')").run(latestSchemaVersion + 5)
    raw.pragma('wal_checkpoint(TRUNCATE)')
    raw.close()
    const before = digest(file)
    expectStoreError(() => openDatabase(file), 'store.too_new', new RegExp(`schema version ${latestSchemaVersion + 5}`))
    expect(digest(file)).toBe(before)
  })

  it('refuses a SQLite database that is not an Airlock database', () => {
    const foreign = new Database(file)
    foreign.exec('create table photos (id integer primary key)')
    foreign.close()
    const before = digest(file)
    expectStoreError(() => openDatabase(file), 'store.corrupt', /not an Airlock database/)
    expect(digest(file)).toBe(before)
  })

  it('reports a database locked by another writer and changes nothing', () => {
    const holder = new Database(file)
    holder.exec('create table schema_version (version integer primary key, name text not null, applied_at text not null)')
    holder.exec('begin exclusive')
    try {
      expectStoreError(() => openDatabase(file, { busyTimeoutMs: 50 }), 'store.locked', /locked by another process/)
    } finally {
      holder.exec('rollback')
    }
    expect(tablesOf(holder)).toEqual(['schema_version'])
    holder.close()
    expect(existsSync(`${file}-wal`)).toBe(false)
  })
})
