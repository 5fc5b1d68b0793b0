import { mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ExecutionResourceManager } from '../../src/main/core'
import type { SqliteConnection } from '../../src/main/providers/sqlite/sqlite-connection'
import { SqliteProvider } from '../../src/main/providers/sqlite/sqlite-provider'
import { makeTempDir } from '../support/temp-home'
import { cases } from './sqlite-file-gate-cases'

let dir: ReturnType<typeof makeTempDir>
let workspace: string
let outside: string
let manager: ExecutionResourceManager

beforeEach(() => {
  dir = makeTempDir('airlock-sqlite-gate-')
  workspace = join(dir.path, 'ws')
  outside = join(dir.path, 'outside')
  mkdirSync(join(workspace, 'data'), { recursive: true })
  mkdirSync(outside)
  const seed = new Database(join(workspace, 'data', 'app.db'))
  seed.exec("create table notes (id integer primary key, body text); insert into notes (body) values ('first'), ('second')")
  seed.close()
  manager = new ExecutionResourceManager().registerProvider(new SqliteProvider())
})

afterEach(async () => {
  await manager.releaseAll()
  // Process-wide SQLite settings outlive a connection: undo them so one case cannot hide another.
  const scratch = new Database(':memory:')
  scratch.pragma("temp_store_directory = ''")
  scratch.pragma('soft_heap_limit = 0')
  scratch.close()
  dir.remove()
})

async function connect(handle: 'read' | 'write'): Promise<SqliteConnection> {
  const policy = { workspaceRoots: [workspace], ...(handle === 'write' ? { readOnly: false } : {}) }
  const ensured = await manager.ensure({ kind: 'sqlite', config: { database: 'data/app.db' }, policy })
  return ensured.resource as SqliteConnection
}

function fill<T>(value: T): T {
  if (typeof value === 'string') return value.replaceAll('{out}', outside) as T
  if (Array.isArray(value)) return value.map(fill) as T
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)])) as T
  return value
}

/** What the host and the connection look like; must be the same before and after every case. */
function hostState(db: SqliteConnection) {
  const fresh = new Database(':memory:')
  const file = new Database(join(workspace, 'data', 'app.db'), { readonly: true, fileMustExist: true })
  try {
    return {
      outsideFolder: readdirSync(outside),
      workspaceData: readdirSync(join(workspace, 'data')).sort(),
      processTempDirectory: fresh.pragma('temp_store_directory', { simple: true }) ?? null,
      processSoftHeapLimit: fresh.pragma('soft_heap_limit', { simple: true }),
      fileJournalMode: file.pragma('journal_mode', { simple: true }),
      connection: db.query(
        `select (select group_concat(name) from pragma_database_list where name <> 'temp') as databases, t.trusted_schema, s.temp_store, q.query_only from pragma_trusted_schema t, pragma_temp_store s, pragma_query_only q`
      )
    }
  } finally {
    fresh.close()
    file.close()
  }
}

describe('security corpus: the sqlite provider reaches no file but its own database', () => {
  it.each(cases.map((c) => [c.id, c] as const))('%s', async (_id, testCase) => {
    const db = await connect(testCase.handle ?? 'write')
    const before = hostState(db)
    expect(before.outsideFolder).toEqual([])
    expect(before.workspaceData).toEqual(['app.db'])

    const sql = fill(testCase.sql)
    const params = fill(testCase.params)
    let outcome: 'blocked' | 'ok' | 'sqlite-error'
    let rows: Record<string, unknown>[] = []
    try {
      const result = db.query(sql, params)
      outcome = result.status
      if (result.status === 'ok') rows = result.rows
      else expect.soft(result.reason, 'a blocked statement says why').toMatch(testCase.reason ?? /\w+ \w+ \w+/)
    } catch (error) {
      expect.soft((error as Error).name, `${testCase.id} threw something other than SQLite's own refusal: ${String(error)}`).toBe('SqliteError')
      outcome = 'sqlite-error'
    }

    // Soft: a wrong outcome still goes on to show what it did to the host.
    expect.soft(outcome, testCase.attack).toBe(testCase.expect)
    if (testCase.rows) expect.soft(rows).toEqual(testCase.rows)
    expect(hostState(db), 'the host and the connection are unchanged').toEqual(before)
  })

  it('the corpus holds at least 20 attempts to reach other files, and legitimate work', () => {
    expect(cases.filter((c) => c.expect !== 'ok' && !c.id.startsWith('blocked-')).length).toBeGreaterThanOrEqual(20)
    expect(cases.filter((c) => c.expect === 'ok').length).toBeGreaterThanOrEqual(5)
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length)
  })
})
