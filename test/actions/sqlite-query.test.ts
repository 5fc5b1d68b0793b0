import { existsSync, mkdirSync, readdirSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { agentProfileDefaults } from '@shared/agents'
import { createSqliteQueryAction, sqliteQueryAction } from '../../src/main/actions/sqlite_query'
import { locateDatabase, verifyOpened } from '../../src/main/actions/sqlite_query/database-file'
import { ActionDispatcher, ActionRegistry, sandboxIdentity } from '../../src/main/core'
import type { SqliteDatabase } from '../../src/main/core/live-resources-data'
import { SqliteProvider, type SqliteConnection } from '../../src/main/providers'
import { makeTempDir } from '../support/temp-home'
import { dataActionHarness } from './data-action-harness'

/** Compile-time proof that the provider's live resource is what the action uses. */
export function structural(connection: SqliteConnection): SqliteDatabase {
  return connection
}

const harness = dataActionHarness([new SqliteProvider()])
harness.registry.register(sqliteQueryAction)
const outside = makeTempDir('airlock-sqlite-outside-')
afterAll(async () => {
  await harness.close()
  outside.remove()
})
const { workspace, call } = harness
const agent = (profile = {}) => harness.agent(['sqlite_query'], profile)

function seed(relative: string): string {
  const file = join(workspace, relative)
  mkdirSync(join(file, '..'), { recursive: true })
  const db = new Database(file)
  db.exec("drop table if exists notes; create table notes (id integer primary key, body text); insert into notes (body) values ('first'), ('second')")
  db.close()
  return file
}

function bodies(file: string): string[] {
  const db = new Database(file, { readonly: true })
  try {
    return (db.prepare('select body from notes order by id').all() as { body: string }[]).map((r) => r.body)
  } finally {
    db.close()
  }
}

beforeEach(() => {
  harness.asked.length = 0
  harness.answer(() => ({ status: 'pending', reason: 'nobody decided' }))
})

describe('sqlite_query through the dispatcher and the real sqlite provider', () => {
  it('reads with parameters: rows, no changes, nothing asked, recorded in history; the connection is released', async () => {
    seed('data/app.db')
    const result = await call('sqlite_query', { database: 'data/app.db', sql: 'select body from notes where id = ?', params: [2] }, agent())
    expect(result).toMatchObject({ ok: true, status: 'success', data: { rows: [{ body: 'second' }], changes: 0, truncated: false }, meta: { provider: { providerId: 'sqlite', writable: false } } })
    const named = await call('sqlite_query', { database: 'data/app.db', sql: 'select count(*) as n from notes where body = :body', params: { body: 'first' } }, agent())
    expect(named.data).toMatchObject({ rows: [{ n: 1 }] })
    expect(harness.asked).toEqual([])
    expect(harness.history.ends.find((end) => end.callId === result.meta.callId)).toMatchObject({ status: 'success', provider: { providerId: 'sqlite' } })
    expect(harness.manager.list({ scope: 'action_call' })).toEqual([])
  })

  it('a write asks the operator with the statement shown; approved, it runs on a writable connection', async () => {
    const file = seed('data/app.db')
    harness.answer(() => ({ status: 'approved', reason: 'looks fine' }))
    const result = await call('sqlite_query', { database: 'data/app.db', sql: "insert into notes (body) values ('third')" }, agent())
    expect(result).toMatchObject({ status: 'success', data: { rows: [], changes: 1 }, meta: { approval: { status: 'approved' }, write: { rule: 'sqlite.write' }, provider: { writable: true } } })
    expect(harness.asked).toHaveLength(1)
    expect(harness.asked[0]).toMatchObject({ tool: 'sqlite_query', agentId: 'agent-1', rule: 'sqlite.write', riskFlags: ['database_write'], summary: expect.stringContaining("insert into notes (body) values ('third')") })
    expect(bodies(file)).toEqual(['first', 'second', 'third'])
  })

  it('a write nobody approved is approval_required, a denied one blocked; the file is unchanged', async () => {
    const file = seed('data/app.db')
    const pending = await call('sqlite_query', { database: 'data/app.db', sql: "delete from notes where body = 'first'" }, agent())
    expect(pending).toMatchObject({ ok: false, status: 'approval_required', error: { code: 'approval.pending' }, meta: { policy: { decision: 'ask', rule: 'sqlite.write' }, approval: { status: 'pending' } } })
    harness.answer(() => ({ status: 'denied', reason: 'not today' }))
    const denied = await call('sqlite_query', { database: 'data/app.db', sql: 'update notes set body = upper(body)' }, agent())
    expect(denied).toMatchObject({ status: 'blocked', error: { code: 'approval.denied', message: expect.stringMatching(/not today/) } })
    expect(bodies(file)).toEqual(['first', 'second'])
  })

  it("with the agent's ask mode never a write runs without asking; with writes refused it is blocked", async () => {
    const file = seed('data/app.db')
    const free = await call('sqlite_query', { database: 'data/app.db', sql: "insert into notes (body) values ('unasked')" }, agent({ ask: 'never' }))
    expect(free).toMatchObject({ status: 'success', data: { changes: 1 }, meta: { write: { decision: 'allow' } } })
    expect(harness.asked).toEqual([])
    const registry = new ActionRegistry()
    registry.register(createSqliteQueryAction({ writes: 'refuse' }))
    const strict = new ActionDispatcher({ manager: harness.manager, registry })
    const refused = await strict.execute({ tool: 'sqlite_query', input: { database: 'data/app.db', sql: 'delete from notes' }, agent: agent({ ask: 'never' }) })
    expect(refused).toMatchObject({ status: 'blocked', error: { code: 'policy.blocked' }, meta: { policy: { rule: 'sqlite.read_only' } } })
    expect(bodies(file)).toEqual(['first', 'second', 'unasked'])
  })

  it("a statement SQLite's gate refuses is blocked without asking; SQLite's own errors are errors", async () => {
    seed('data/app.db')
    const attach = await call('sqlite_query', { database: 'data/app.db', sql: `ATTACH '${outside.path}/a.db' AS x` }, agent())
    expect(attach).toMatchObject({ status: 'blocked', meta: { policy: { rule: 'sqlite.statement_refused', reason: expect.stringMatching(/ATTACH/) } } })
    expect(readdirSync(outside.path)).toEqual([])
    const missingTable = await call('sqlite_query', { database: 'data/app.db', sql: 'select * from nope' }, agent())
    expect(missingTable).toMatchObject({ status: 'error', error: { code: 'sqlite_query.sqlite_error', message: expect.stringMatching(/no such table: nope/) } })
    expect(harness.asked).toEqual([])
  })

  it('a missing database: a read runs on an empty database and creates nothing; a write creates it (for the sandbox uid)', async () => {
    const read = await call('sqlite_query', { database: 'fresh/new.db', sql: 'select 1 as one' }, agent())
    expect(read).toMatchObject({ status: 'error', error: { code: 'sqlite_query.folder_missing', message: expect.stringMatching(/the folder fresh does not exist/) } })
    mkdirSync(join(workspace, 'fresh'))
    const again = await call('sqlite_query', { database: 'fresh/new.db', sql: 'select 1 as one' }, agent())
    expect(again).toMatchObject({ status: 'success', data: { rows: [{ one: 1 }] } })
    expect(again.diagnostics.join('\n')).toMatch(/does not exist: the statement ran on an empty in-memory database/)
    expect(existsSync(join(workspace, 'fresh/new.db'))).toBe(false)
    harness.answer(() => ({ status: 'approved', reason: 'ok' }))
    const created = await call('sqlite_query', { database: 'fresh/new.db', sql: 'create table t (x)' }, agent())
    expect(created).toMatchObject({ status: 'success' })
    expect(statSync(join(workspace, 'fresh/new.db')).uid).toBe(sandboxIdentity().uid)
  })

  it('rows past the output limit are cut whole, and the bound is reported', async () => {
    seed('data/app.db')
    const limits = { ...agentProfileDefaults.limits, outputBytes: 30 }
    const result = await call('sqlite_query', { database: 'data/app.db', sql: 'select id, body from notes' }, agent({ limits }))
    expect(result).toMatchObject({ status: 'success', data: { rows: [{ id: 1, body: 'first' }], truncated: true } })
    expect(result.diagnostics.join('\n')).toMatch(/only the first 1 of 2 rows are returned: the rest would pass the agent's output limit of 30 bytes/)
  })
})

describe('sqlite_query refuses databases outside the workspace', () => {
  it('absolute paths and .. are invalid input naming the field', async () => {
    for (const database of ['/etc/passwd', '../outside.db', 'data/../../outside.db']) {
      expect(await call('sqlite_query', { database, sql: 'select 1' }, agent())).toMatchObject({ status: 'error', error: { code: 'invalid_input', message: expect.stringMatching(/^Invalid input for sqlite_query: database: /) } })
    }
  })

  it('a symbolic link to a file or a folder outside, and .airlock/, are blocked; the outside file is neither read nor written', async () => {
    const secret = join(outside.path, 'secret.db')
    const db = new Database(secret)
    db.exec("create table notes (id integer primary key, body text); insert into notes (body) values ('outside secret')")
    db.close()
    symlinkSync(secret, join(workspace, 'link.db'))
    symlinkSync(outside.path, join(workspace, 'linked-folder'))
    harness.answer(() => ({ status: 'approved', reason: 'approve everything' }))
    for (const database of ['link.db', 'linked-folder/secret.db', '.airlock/x.db']) {
      for (const sql of ['select body from notes', "insert into notes (body) values ('planted')"]) {
        const result = await call('sqlite_query', { database, sql }, agent())
        expect(result, `${database}: ${sql}`).toMatchObject({ status: 'blocked', error: { code: 'sqlite_query.path_refused' }, meta: { policy: { rule: 'workspace.boundary' } } })
        expect(JSON.stringify(result)).not.toContain('outside secret')
      }
    }
    expect(bodies(secret)).toEqual(['outside secret'])
    expect(harness.asked).toEqual([])
  })

  it('a file or folder swapped between the check and the open is detected, and the connection is not used', async () => {
    const provider = new SqliteProvider()
    const open = async (database: string) => (await provider.ensure({ requirement: { kind: 'sqlite', requirementId: 'r', scope: 'action_call', resourceKey: 'sqlite', config: { database } }, policy: { workspaceRoots: [workspace] } })).resource as SqliteConnection
    seed('swap/app.db')
    const fileBefore = locateDatabase(workspace, 'swap/app.db')
    seed('swap/other.db')
    renameSync(join(workspace, 'swap/other.db'), join(workspace, 'swap/app.db'))
    const swappedFile = await open('swap/app.db')
    expect(() => verifyOpened(swappedFile, workspace, fileBefore)).toThrow(/was replaced while it was being opened/)
    swappedFile.close()

    const folderBefore = locateDatabase(workspace, 'swap/app.db')
    renameSync(join(workspace, 'swap'), join(workspace, 'swap-old'))
    seed('swap-new/app.db')
    symlinkSync(join(workspace, 'swap-new'), join(workspace, 'swap'))
    const swappedFolder = await open('swap/app.db')
    expect(() => verifyOpened(swappedFolder, workspace, folderBefore)).toThrow(/changed while it was being opened \(SQLite opened another file\)/)
    swappedFolder.close()
    writeFileSync(join(workspace, 'plain.txt'), 'not a database folder')
    expect(() => locateDatabase(workspace, 'plain.txt/x.db')).toThrow(/not a directory/)
  })
})
