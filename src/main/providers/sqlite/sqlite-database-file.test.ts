import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync
} from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../../test/support/temp-home'
import { ExecutionResourceManager, sandboxIdentity } from '../../core'
import type { SqliteConnection } from './sqlite-connection'
import { maxDatabaseBytes } from './sqlite-database-file'
import { SqliteProvider } from './sqlite-provider'

let dir: ReturnType<typeof makeTempDir>
let workspace: string
let outside: string
let manager: ExecutionResourceManager
beforeEach(() => {
  dir = makeTempDir()
  workspace = join(dir.path, 'ws')
  outside = join(dir.path, 'outside')
  mkdirSync(join(workspace, 'data'), { recursive: true })
  mkdirSync(outside)
  seed(join(workspace, 'data', 'app.db'))
  manager = new ExecutionResourceManager().registerProvider(new SqliteProvider())
})
afterEach(async () => {
  await manager.releaseAll().catch(() => undefined)
  dir.remove()
})

function seed(file: string): void {
  const db = new Database(file)
  db.exec("create table notes (id integer primary key, body text); insert into notes (body) values ('first'), ('second')")
  db.close()
}

async function connect(database: string, writable: boolean) {
  const handle = await manager.ensure({ kind: 'sqlite', config: { database }, policy: { workspaceRoots: [workspace], readOnly: !writable } })
  return { handle, db: handle.resource as SqliteConnection }
}

function bodies(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return db.prepare('select body from notes order by id').pluck().all() as string[]
  } finally {
    db.close()
  }
}

describe('the sqlite provider holds the database file, never its path', () => {
  it('a write reaches the file at release as a new file renamed over the name, owned by the sandbox identity; nothing else is left', async () => {
    const file = join(workspace, 'data', 'app.db')
    const before = statSync(file)
    const { handle, db } = await connect('data/app.db', true)
    expect(db.query("insert into notes (body) values ('third')")).toMatchObject({ status: 'ok', changes: 1 })
    expect(bodies(file), 'the file changes only when the handle is released').toEqual(['first', 'second'])
    await manager.release(handle)
    const after = statSync(file)
    expect(bodies(file)).toEqual(['first', 'second', 'third'])
    expect(after.ino).not.toBe(before.ino)
    expect(after.uid).toBe(sandboxIdentity().uid)
    expect(after.gid).toBe(sandboxIdentity().gid)
    expect(readdirSync(join(workspace, 'data'))).toEqual(['app.db'])
  })

  it('a handle that changed nothing leaves the file as it was; a missing file is created only by a change', async () => {
    const file = join(workspace, 'data', 'app.db')
    const inode = statSync(file).ino
    const read = await connect('data/app.db', true)
    expect(read.db.query('select count(*) as n from notes')).toMatchObject({ rows: [{ n: 2 }] })
    await manager.release(read.handle)
    expect(statSync(file).ino).toBe(inode)

    const idle = await connect('data/none.db', true)
    await manager.release(idle.handle)
    expect(existsSync(join(workspace, 'data', 'none.db'))).toBe(false)
    const created = await connect('data/new.db', true)
    expect(created.db.query('create table t (x)')).toMatchObject({ status: 'ok' })
    await manager.release(created.handle)
    expect(statSync(join(workspace, 'data', 'new.db')).uid).toBe(sandboxIdentity().uid)
  })

  it('refuses a symbolic link as the file or on the way, and a file with another hard link', async () => {
    seed(join(outside, 'secret.db'))
    symlinkSync(join(outside, 'secret.db'), join(workspace, 'data', 'link.db'))
    symlinkSync(outside, join(workspace, 'out'))
    linkSync(join(outside, 'secret.db'), join(workspace, 'data', 'hard.db'))
    for (const writable of [false, true]) {
      await expect(connect('data/link.db', writable)).rejects.toThrow(/the database data\/link.db is refused: link.db is a symbolic link/)
      await expect(connect('out/secret.db', writable)).rejects.toThrow(/the folder of the database out\/secret.db is refused: out is a symbolic link/)
      await expect(connect('data/hard.db', writable)).rejects.toThrow(
        /the database data\/hard.db has 2 hard links; one of them may be a file outside the workspace/
      )
    }
    expect(bodies(join(outside, 'secret.db'))).toEqual(['first', 'second'])
  })

  it('refuses a WAL database whose -wal holds commits, saying how to checkpoint it; an empty -wal is fine and the file stays in WAL mode', async () => {
    const file = join(workspace, 'data', 'wal.db')
    const writer = new Database(file)
    writer.pragma('journal_mode = WAL')
    writer.exec("create table notes (id integer primary key, body text); insert into notes (body) values ('committed in the wal')")
    try {
      expect(statSync(`${file}-wal`).size).toBeGreaterThan(0)
      await expect(connect('data/wal.db', false)).rejects.toMatchObject({
        code: 'sqlite.wal_pending',
        message: expect.stringContaining(
          "holds commits not yet in the file; checkpoint it first (run_command: sqlite3 data/wal.db 'PRAGMA wal_checkpoint(TRUNCATE)')"
        )
      })
      writer.pragma('wal_checkpoint(TRUNCATE)')
      expect(statSync(`${file}-wal`).size).toBe(0)
      const { handle, db } = await connect('data/wal.db', true)
      expect(db.query("insert into notes (body) values ('through airlock')")).toMatchObject({ status: 'ok' })
      await manager.release(handle)
    } finally {
      writer.close()
    }
    expect(readFileSync(file).subarray(18, 20)).toEqual(Buffer.from([2, 2]))
    expect(bodies(file)).toEqual(['committed in the wal', 'through airlock'])
  })

  it('refuses a database whose rollback journal holds a transaction, and one over the size cap', async () => {
    writeFileSync(join(workspace, 'data', 'app.db-journal'), Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7, 0, 0, 0, 0]))
    await expect(connect('data/app.db', false)).rejects.toMatchObject({
      code: 'sqlite.hot_journal',
      message: expect.stringMatching(/rollback journal holding a transaction/)
    })
    writeFileSync(join(workspace, 'data', 'app.db-journal'), Buffer.alloc(512))
    await expect(connect('data/app.db', false)).resolves.toBeDefined()

    closeSync(openSync(join(workspace, 'data', 'big.db'), 'w'))
    truncateSync(join(workspace, 'data', 'big.db'), maxDatabaseBytes + 1)
    await expect(connect('data/big.db', false)).rejects.toMatchObject({ code: 'sqlite.too_large', message: expect.stringMatching(/at most 268435456 bytes/) })
  })

  it('a write-back that fails makes release fail (release_failed) and leaves no temporary file; releasing again does nothing', async () => {
    const { handle, db } = await connect('data/app.db', true)
    expect(db.query("insert into notes (body) values ('lost')")).toMatchObject({ status: 'ok' })
    // The agent replaces the database with a folder while the handle is held: the rename cannot replace it.
    rmSync(join(workspace, 'data', 'app.db'))
    mkdirSync(join(workspace, 'data', 'app.db', 'inside'), { recursive: true })
    await expect(manager.release(handle)).rejects.toMatchObject({
      code: 'execution_resource.release_failed',
      message: expect.stringMatching(/the changes to data\/app.db could not be written back/)
    })
    expect(readdirSync(join(workspace, 'data'))).toEqual(['app.db'])
    await expect(manager.releaseAll()).resolves.toBeUndefined()
  })
})
