import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../../test/support/temp-home'
import { ExecutionResourceManager, type ResourcePolicy } from '../../core'
import type { SqliteConnection } from './sqlite-connection'
import { SqliteProvider } from './sqlite-provider'

let dir: ReturnType<typeof makeTempDir>
let workspace: string
let manager: ExecutionResourceManager
beforeEach(() => {
  dir = makeTempDir()
  workspace = join(dir.path, 'ws')
  mkdirSync(join(workspace, 'data'), { recursive: true })
  const seed = new Database(join(workspace, 'data', 'app.db'))
  seed.exec("create table notes (id integer primary key, body text); insert into notes (body) values ('first'), ('second')")
  seed.close()
  manager = new ExecutionResourceManager().registerProvider(new SqliteProvider())
})
afterEach(async () => {
  await manager.releaseAll()
  dir.remove()
})

async function connect(database: string, policy: Partial<ResourcePolicy> = {}, extra: Record<string, unknown> = {}) {
  const handle = await manager.ensure({ kind: 'sqlite', config: { database, ...extra }, policy: { workspaceRoots: [workspace], ...policy } })
  return { handle, db: handle.resource as SqliteConnection }
}

describe('sqlite provider', () => {
  it('reads a real database file in the workspace with parameters', async () => {
    const { db } = await connect('data/app.db')
    expect(db.query('select body from notes where id = ?', [2])).toEqual({ status: 'ok', rows: [{ body: 'second' }], changes: 0, truncated: false })
    expect(db.query('select count(*) as n from notes where body = @body', { body: 'first' })).toMatchObject({ rows: [{ n: 1 }] })
  })

  it('is read-only unless the policy allows writes: a write comes back blocked, not thrown', async () => {
    const { db } = await connect('data/app.db')
    const result = db.query("insert into notes (body) values ('third')")
    expect(result).toMatchObject({ status: 'blocked', reason: expect.stringMatching(/needs approval/) })
    expect(db.query('select count(*) as n from notes')).toMatchObject({ rows: [{ n: 2 }] })
  })

  it('writes when the policy allows, and reports changes; the file has them once the handle is released', async () => {
    const { handle, db } = await connect('data/app.db', { readOnly: false })
    expect(db.query("update notes set body = 'edited'")).toMatchObject({ status: 'ok', changes: 2 })
    await manager.release(handle)
    const check = new Database(join(workspace, 'data', 'app.db'), { readonly: true })
    expect(check.prepare('select body from notes').pluck().all()).toEqual(['edited', 'edited'])
    check.close()
  })

  it('creates a new database only on a writable handle; :memory: works', async () => {
    await expect(connect('data/new.db')).rejects.toThrow(/does not exist/)
    const { db } = await connect('data/new.db', { allowCreate: true })
    expect(db.query('create table t (x)')).toMatchObject({ status: 'ok' })
    const memory = await connect(':memory:', { readOnly: false })
    expect(memory.db.query('select 1 + 1 as two')).toMatchObject({ rows: [{ two: 2 }] })
  })

  it('refuses statements that reach other files, on any handle', async () => {
    const { db } = await connect('data/app.db', { readOnly: false })
    expect(db.query(`attach database '${join(dir.path, 'other.db')}' as other`)).toMatchObject({ status: 'blocked' })
    expect(db.query(`/* sneaky */ -- comment\n ATTACH '/etc/passwd' AS p`)).toMatchObject({ status: 'blocked' })
    expect(db.query(`vacuum into '${join(dir.path, 'copy.db')}'`)).toMatchObject({ status: 'blocked' })
    expect(db.query('pragma journal_mode = off')).toMatchObject({ status: 'blocked' })
  })

  it('bounds the rows returned and says so', async () => {
    const { db } = await connect('data/app.db', {}, { maxRows: 1 })
    expect(db.query('select * from notes')).toMatchObject({ truncated: true, rows: [{ id: 1 }] })
  })

  it('keeps the database inside the workspace: absolute, .. and symlinks out are refused', async () => {
    writeFileSync(join(dir.path, 'outside.db'), '')
    symlinkSync(join(dir.path, 'outside.db'), join(workspace, 'link.db'))
    await expect(connect('/etc/passwd')).rejects.toThrow(/invalid sqlite config: database must be a path inside the workspace/)
    await expect(connect('../outside.db')).rejects.toThrow(/must be a path inside the workspace/)
    await expect(connect('link.db')).rejects.toThrow(/the database link.db is refused: link.db is a symbolic link/)
    await expect(manager.ensure({ kind: 'sqlite', config: { database: 'data/app.db', extra: true }, policy: { workspaceRoots: [workspace] } })).rejects.toThrow(
      /invalid sqlite config/
    )
  })

  it('health check runs select 1; release closes the connection', async () => {
    const { handle, db } = await connect('data/app.db')
    expect(await new SqliteProvider().healthCheck(handle)).toBe('ready')
    await manager.release(handle)
    expect(db.open).toBe(false)
    expect(await new SqliteProvider().healthCheck(handle)).toBe('unhealthy')
  })
})
