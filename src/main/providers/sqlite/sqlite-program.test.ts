import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readProgram, refusalOf } from './sqlite-program'

let db: Database.Database
beforeEach(() => {
  db = new Database(':memory:')
  db.exec('create table notes (id integer primary key, body text)')
})
afterEach(() => db.close())

const judge = (sql: string, args: unknown[] = []) => refusalOf(readProgram(db, sql, args))

describe('the program SQLite compiles decides, not the text', () => {
  it('VACUUM INTO is one Vacuum instruction with a target, however it is spelled', () => {
    for (const sql of ["VACUUM/**/INTO '/x.db'", `VACUUM"main"INTO'/x.db'`, "vacuum main into '/x' || '.db'"]) {
      expect(judge(sql), sql).toMatch(/VACUUM INTO writes a copy/)
    }
    expect(judge('VACUUM INTO ?', ['/x.db'])).toMatch(/VACUUM INTO/)
    expect(judge('VACUUM')).toBeUndefined()
  })

  it('ATTACH and DETACH are calls of sqlite_attach / sqlite_detach', () => {
    expect(judge("ATTACH '/x.db' AS x")).toMatch(/ATTACH opens another database file/)
    expect(judge('attach ? as "x"', ['/x.db'])).toMatch(/ATTACH/)
    expect(judge('DETACH main')).toMatch(/DETACH/)
  })

  it('refuses functions that load native code, also inside a trigger it would fire', () => {
    expect(judge("select load_extension('/x.so')")).toMatch(/load_extension loads native code/)
    db.exec('create table log (x); create trigger t after insert on notes begin insert into log select upper(new.body); end')
    expect(readProgram(db, "insert into notes (body) values ('x')", []).some((s) => s.p4 === 'upper(1)')).toBe(true)
  })

  it('fails closed on an instruction nobody reviewed, and on a database other than main or temp', () => {
    expect(refusalOf([{ opcode: 'FutureOpcode', p1: 0, p2: 0, p3: 0, p4: null }])).toMatch(/FutureOpcode, which Airlock has not reviewed/)
    expect(refusalOf([{ opcode: 'Transaction', p1: 2, p2: 0, p3: 0, p4: null }])).toMatch(/database other than its own/)
  })

  it('lets ordinary work through', () => {
    for (const sql of [
      'select count(*), group_concat(body) from notes',
      'select sum(id) over (order by id) from notes',
      "insert into notes (body) values ('a') on conflict do nothing returning id",
      "update notes set body = json_object('a', 1) where id in (select id from notes limit 1)",
      'create index notes_body on notes (body)',
      'create table gen (a, b as (a * 2))',
      'create view v as select * from notes',
      'alter table notes add column extra text',
      'create virtual table docs using fts5(body)',
      "select * from pragma_table_info('notes')",
      'begin',
      'analyze'
    ]) {
      expect(judge(sql), sql).toBeUndefined()
    }
  })
})

describe('the SQLite build this gate was reviewed against', () => {
  it('is SQLite 3.53 (a new version brings opcodes and functions to review in sqlite-program.ts)', () => {
    expect(db.prepare('select sqlite_version()').pluck().get()).toMatch(/^3\.53\./)
  })

  it('has load_extension switched off in SQLite itself, and no file-reaching function or module compiled in', () => {
    expect(() => db.prepare("select load_extension('/nonexistent.so')").get()).toThrow(/not authorized/)
    const functions = db.prepare('select name from pragma_function_list').pluck().all() as string[]
    for (const name of ['readfile', 'writefile', 'edit', 'lsmode', 'sqlar_compress', 'sqlar_uncompress', 'shell_add_schema']) {
      expect(functions).not.toContain(name)
    }
    // Virtual-table modules can read files (csv, fsdir, zipfile in SQLite's extras): none is here.
    const modules = (db.prepare('select name from pragma_module_list order by name').pluck().all() as string[]).filter((m) => !m.startsWith('pragma_'))
    expect(modules).toEqual(['dbstat', 'fts3', 'fts3tokenize', 'fts4', 'fts4aux', 'fts5', 'fts5vocab', 'geopoly', 'rtree', 'rtree_i32'])
  })
})
