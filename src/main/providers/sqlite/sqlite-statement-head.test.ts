import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { leadingKeyword, pragmaAsSelect, statementRoute } from './sqlite-statement-head'

describe('leadingKeyword reads the first token as SQLite does', () => {
  it.each([
    ['select 1', 'select'],
    ['  \t\r\n\fSELECT 1', 'select'],
    ['/* a */ -- b\n/**/PrAgMa x', 'pragma'],
    ['VACUUM/**/INTO x', 'vacuum'],
    ['VACUUM"main"INTO', 'vacuum'],
    ['explain pragma x', 'explain'],
    ['select$x', 'select$x'],
    ['\uFEFFselect 1', 'select'],
    ['\u017Felect 1', '\u017Felect'],
    ['selecté 1', 'selecté']
  ])('%j -> %s', (sql, keyword) => {
    expect(leadingKeyword(sql)).toBe(keyword)
  })

  it.each([';pragma x', '"pragma" x', "'select'", '\vselect 1', '/* never closed', '-- only a comment', '', '(select 1)'])(
    'refuses %j: not a bare keyword first',
    (sql) => {
      expect(leadingKeyword(sql)).toBeUndefined()
    }
  )

  it('never routes a text to be prepared as sent when SQLite would prepare it as a PRAGMA when SQLite would prepare it as a PRAGMA', () => {
    // cache_size acts while SQLite prepares it: a prepared disguise shows in the connection.
    const disguises = [
      'PRAGMA cache_size = 1234',
      ' pragma/**/cache_size=1234',
      ';PRAGMA cache_size = 1234',
      ';;\n;PRAGMA cache_size = 1234',
      '\uFEFFPRAGMA cache_size = 1234',
      '\vPRAGMA cache_size = 1234',
      '\u00a0PRAGMA cache_size = 1234',
      '--x\rPRAGMA cache_size = 1234',
      '/*/ PRAGMA cache_size = 1234 */select 1',
      'EXPLAIN PRAGMA cache_size = 1234',
      'explain query plan pragma cache_size = 1234',
      'select 1; PRAGMA cache_size = 1234',
      'PRAGMA\u0000cache_size = 1234',
      '"PRAGMA" cache_size = 1234'
    ]
    for (const sql of disguises) {
      const db = new Database(':memory:')
      try {
        db.prepare(sql)
      } catch {
        // SQLite refused the text; the question is only whether it acted first.
      }
      const actedAsPragma = db.pragma('cache_size', { simple: true }) === 1234
      db.close()
      if (actedAsPragma) expect(statementRoute(sql).route, sql).not.toBe('prepare')
    }
  })
})

describe('pragmaAsSelect turns a PRAGMA into a SELECT on its table-valued form', () => {
  it.each([
    ['PRAGMA table_info(notes)', 'SELECT * FROM "pragma_table_info" WHERE arg = ?', ['notes']],
    ["pragma main.table_info('my notes');", 'SELECT * FROM "pragma_table_info" WHERE arg = ? AND schema = ?', ['my notes', 'main']],
    ['PRAGMA "main"."index_list" = [notes]', 'SELECT * FROM "pragma_index_list" WHERE arg = ? AND schema = ?', ['notes', 'main']],
    ['PRAGMA user_version', 'SELECT * FROM "pragma_user_version"', []],
    ["PRAGMA 'temp_store_directory' = '/tmp'", 'SELECT * FROM "pragma_temp_store_directory" WHERE arg = ?', ['/tmp']],
    ['PRAGMA/**/cache_size == -2000', 'SELECT * FROM "pragma_cache_size" WHERE arg = ?', ['-2000']],
    ['PRAGMA integrity_check(+10)', 'SELECT * FROM "pragma_integrity_check" WHERE arg = ?', ['10']],
    ["PRAGMA table_info('it''s')", 'SELECT * FROM "pragma_table_info" WHERE arg = ?', ["it's"]]
  ])('%j', (sql, select, params) => {
    expect(pragmaAsSelect(sql)).toMatchObject({ sql: select, params })
  })

  it.each([
    ['PRAGMA', 'not a PRAGMA statement'],
    ['PRAGMA table_info(notes); ATTACH x AS y', 'cannot read'],
    ['PRAGMA table_info(notes', 'cannot read'],
    ['PRAGMA x = 1 + 1', 'cannot read'],
    ['PRAGMA "a b" = 1', 'not a PRAGMA name'],
    ['PRAGMA x = "unterminated', 'cannot read'],
    ['PRAGMA x = ?', 'cannot read'],
    ["PRAGMA x = x'00'", 'cannot read'],
    ['PRAGMA a.b.c', 'cannot read'],
    ['PRAGMA 1.x', 'not a PRAGMA statement']
  ])('refuses %j', (sql, reason) => {
    expect(pragmaAsSelect(sql)).toEqual({ refused: expect.stringContaining(reason) })
  })
})
