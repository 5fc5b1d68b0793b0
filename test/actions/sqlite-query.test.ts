import { existsSync, linkSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { agentProfileDefaults } from '@shared/agents'
import { createSqliteQueryAction, sqliteQueryAction } from '../../src/main/actions/sqlite_query'
import { locateDatabase } from '../../src/main/actions/sqlite_query/database-file'
import { ActionDispatcher, ActionRegistry, sandboxIdentity } from '../../src/main/core'
import type { SqliteDatabase } from '../../src/main/core/live-resources/data'
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
    expect(result).toMatchObject({
      ok: true,
      status: 'success',
      data: { rows: [{ body: 'second' }], changes: 0, truncated: false },
      meta: { provider: { providerId: 'sqlite', writable: false } }
    })
    const named = await call(
      'sqlite_query',
      { database: 'data/app.db', sql: 'select count(*) as n from notes where body = :body', params: { body: 'first' } },
      agent()
    )
    expect(named.data).toMatchObject({ rows: [{ n: 1 }] })
    expect(harness.asked).toEqual([])
    expect(harness.history.ends.find((end) => end.callId === result.meta.callId)).toMatchObject({ status: 'success', provider: { providerId: 'sqlite' } })
    expect(harness.manager.list({ scope: 'action_call' })).toEqual([])
  })

  it('a write asks the operator with the statement shown; approved, it runs on a writable connection', async () => {
    const file = seed('data/app.db')
    harness.answer(() => ({ status: 'approved', reason: 'looks fine' }))
    const result = await call('sqlite_query', { database: 'data/app.db', sql: "insert into notes (body) values ('third')" }, agent())
    expect(result).toMatchObject({
      status: 'success',
      data: { rows: [], changes: 1 },
      meta: { approval: { status: 'approved' }, write: { rule: 'sqlite.write' }, provider: { writable: true } }
    })
    expect(harness.asked).toHaveLength(1)
    expect(harness.asked[0]).toMatchObject({
      tool: 'sqlite_query',
      agentId: 'agent-1',
      rule: 'sqlite.write',
      riskFlags: ['database_write'],
      summary: expect.stringContaining("insert into notes (body) values ('third')")
    })
    expect(bodies(file)).toEqual(['first', 'second', 'third'])
  })

  it('a write nobody approved is approval_required, a denied one blocked; the file is unchanged', async () => {
    const file = seed('data/app.db')
    const pending = await call('sqlite_query', { database: 'data/app.db', sql: "delete from notes where body = 'first'" }, agent())
    expect(pending).toMatchObject({
      ok: false,
      status: 'approval_required',
      error: { code: 'approval.pending' },
      meta: { policy: { decision: 'ask', rule: 'sqlite.write' }, approval: { status: 'pending' } }
    })
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
    expect(read).toMatchObject({
      status: 'error',
      error: { code: 'sqlite_query.folder_missing', message: expect.stringMatching(/the folder fresh does not exist/) }
    })
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
      expect(await call('sqlite_query', { database, sql: 'select 1' }, agent())).toMatchObject({
        status: 'error',
        error: { code: 'invalid_input', message: expect.stringMatching(/^Invalid input for sqlite_query: database: /) }
      })
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
        expect(result, `${database}: ${sql}`).toMatchObject({
          status: 'blocked',
          error: { code: 'sqlite_query.path_refused' },
          meta: { policy: { rule: 'workspace.boundary' } }
        })
        expect(JSON.stringify(result)).not.toContain('outside secret')
      }
    }
    expect(bodies(secret)).toEqual(['outside secret'])
    expect(harness.asked).toEqual([])
  })

  it('a folder swapped for a link after the check is refused at the open; a file swapped inside the workspace is the one read', async () => {
    const provider = new SqliteProvider()
    const open = async (database: string) =>
      (
        await provider.ensure({
          requirement: { kind: 'sqlite', requirementId: 'r', scope: 'action_call', resourceKey: 'sqlite', config: { database } },
          policy: { workspaceRoots: [workspace] }
        })
      ).resource as SqliteConnection
    seed('swap/app.db')
    expect(locateDatabase(workspace, 'swap/app.db')).toEqual({ relative: 'swap/app.db', exists: true })
    renameSync(join(workspace, 'swap'), join(workspace, 'swap-old'))
    symlinkSync(outside.path, join(workspace, 'swap'))
    await expect(open('swap/app.db')).rejects.toThrow(/the folder of the database swap\/app.db is refused: swap is a symbolic link/)

    const other = seed('other/app.db')
    const db = new Database(other)
    db.exec("update notes set body = 'swapped in'")
    db.close()
    renameSync(other, join(workspace, 'swap-old/app.db'))
    const swappedFile = await open('swap-old/app.db')
    expect(swappedFile.query('select body from notes order by id')).toMatchObject({ rows: [{ body: 'swapped in' }, { body: 'swapped in' }] })
    swappedFile.close()
    writeFileSync(join(workspace, 'plain.txt'), 'not a database folder')
    expect(() => locateDatabase(workspace, 'plain.txt/x.db')).toThrow(/not a directory/)
  })
})

describe('sqlite_query loads the file through descriptors and writes it back whole', () => {
  it('a hard-linked database is refused (it may be a file outside); the outside file is untouched', async () => {
    const secret = join(outside.path, 'hard-secret.db')
    const db = new Database(secret)
    db.exec("create table notes (id integer primary key, body text); insert into notes (body) values ('outside secret')")
    db.close()
    mkdirSync(join(workspace, 'hard'), { recursive: true })
    linkSync(secret, join(workspace, 'hard/app.db'))
    for (const sql of ['select body from notes', "insert into notes (body) values ('planted')"]) {
      const result = await call('sqlite_query', { database: 'hard/app.db', sql }, agent({ ask: 'never' }))
      expect(result, sql).toMatchObject({
        status: 'blocked',
        error: { code: 'sqlite_query.path_refused', message: expect.stringMatching(/has 2 hard links/) },
        meta: { policy: { rule: 'workspace.boundary' } }
      })
      expect(JSON.stringify(result)).not.toContain('outside secret')
    }
    expect(bodies(secret)).toEqual(['outside secret'])
  })

  it('a WAL database with commits still in its -wal is refused with how to checkpoint it', async () => {
    const file = join(workspace, 'wal/app.db')
    mkdirSync(join(workspace, 'wal'), { recursive: true })
    const writer = new Database(file)
    try {
      writer.pragma('journal_mode = WAL')
      writer.exec("create table notes (id integer primary key, body text); insert into notes (body) values ('in the wal')")
      const refused = await call('sqlite_query', { database: 'wal/app.db', sql: 'select body from notes' }, agent())
      expect(refused).toMatchObject({
        status: 'error',
        error: { code: 'sqlite.wal_pending', message: expect.stringContaining("run_command: sqlite3 wal/app.db 'PRAGMA wal_checkpoint(TRUNCATE)'") }
      })
      writer.pragma('wal_checkpoint(TRUNCATE)')
      const read = await call('sqlite_query', { database: 'wal/app.db', sql: 'select body from notes' }, agent())
      expect(read).toMatchObject({ status: 'success', data: { rows: [{ body: 'in the wal' }] } })
    } finally {
      writer.close()
    }
  })

  it('an approved write replaces the file as a whole (a new file, the sandbox identity its owner)', async () => {
    const file = seed('whole/app.db')
    const inode = statSync(file).ino
    const result = await call('sqlite_query', { database: 'whole/app.db', sql: "insert into notes (body) values ('third')" }, agent({ ask: 'never' }))
    expect(result).toMatchObject({ status: 'success', data: { changes: 1 } })
    expect(bodies(file)).toEqual(['first', 'second', 'third'])
    expect(statSync(file)).toMatchObject({ uid: sandboxIdentity().uid, gid: sandboxIdentity().gid })
    expect(statSync(file).ino).not.toBe(inode)
    expect(readdirSync(join(workspace, 'whole'))).toEqual(['app.db'])
  })

  it('a write-back that fails is the error of the call, and the file is not half-written', async () => {
    /** The agent's own process replaces the database by a folder while the writable connection is held. */
    class ProviderRacedByAgent extends SqliteProvider {
      override async ensure(args: Parameters<SqliteProvider['ensure']>[0]) {
        const provided = await super.ensure(args)
        if (args.policy.readOnly === false) {
          rmSync(join(args.policy.workspaceRoots![0]!, 'db/app.db'))
          mkdirSync(join(args.policy.workspaceRoots![0]!, 'db/app.db/taken'), { recursive: true })
        }
        return provided
      }
    }
    const raced = dataActionHarness([new ProviderRacedByAgent()])
    try {
      raced.registry.register(sqliteQueryAction)
      mkdirSync(join(raced.workspace, 'db'))
      const file = join(raced.workspace, 'db/app.db')
      new Database(file).exec('create table notes (body text)').close()
      const result = await raced.call(
        'sqlite_query',
        { database: 'db/app.db', sql: "insert into notes (body) values ('x')" },
        raced.agent(['sqlite_query'], { ask: 'never' })
      )
      expect(result).toMatchObject({
        ok: false,
        status: 'error',
        error: { code: 'execution_resource.release_failed', message: expect.stringMatching(/the changes to db\/app.db could not be written back/) }
      })
      expect(readdirSync(join(raced.workspace, 'db'))).toEqual(['app.db'])
    } finally {
      await raced.close()
    }
  })
})
