/**
 * One attempt on the sqlite provider's file boundary. `{out}` in `sql` and `params` stands for a
 * folder outside the workspace; nothing may ever appear there. `handle` is the connection the
 * statement runs on (default `write`, the strongest attacker). `sqlite-error`: SQLite itself
 * refuses the text (a syntax error), so nothing runs.
 */
export type SqliteFileGateCase = {
  id: string
  attack: string
  sql: string
  params?: unknown[] | Record<string, unknown>
  handle?: 'read' | 'write'
  expect: 'blocked' | 'ok' | 'sqlite-error'
  /** For `ok` cases: the rows the statement must return. */
  rows?: Record<string, unknown>[]
  /** For `blocked` cases: what the reason must name, in the agent author's words. */
  reason?: RegExp
}

/** The corpus: every known way to reach a file outside the database, then statements that must still work. */
export const cases: SqliteFileGateCase[] = [
  // VACUUM INTO writes a full copy of the database wherever it is told.
  {
    id: 'vacuum-comment-between',
    attack: 'a comment between VACUUM and INTO hides INTO from a text match',
    sql: "VACUUM/**/INTO '{out}/v1.db'",
    expect: 'blocked',
    reason: /VACUUM INTO writes a copy/
  },
  { id: 'vacuum-quoted-schema-no-spaces', attack: 'a quoted schema name and no spaces at all', sql: `VACUUM"main"INTO'{out}/v2.db'`, expect: 'blocked' },
  { id: 'vacuum-plain', attack: 'the plain spelling', sql: "vacuum into '{out}/v3.db'", expect: 'blocked' },
  { id: 'vacuum-schema', attack: 'an explicit schema name', sql: "VACUUM main INTO '{out}/v4.db'", expect: 'blocked' },
  { id: 'vacuum-line-comment', attack: 'a line comment and a newline between the keywords', sql: "VACUUM -- tidy up\nINTO '{out}/v5.db'", expect: 'blocked' },
  {
    id: 'vacuum-positional-param',
    attack: 'the target as a positional parameter',
    sql: 'VACUUM INTO ?',
    params: ['{out}/v6.db'],
    expect: 'blocked',
    reason: /VACUUM INTO/
  },
  { id: 'vacuum-named-param', attack: 'the target as a named parameter', sql: 'VACUUM INTO :target', params: { target: '{out}/v7.db' }, expect: 'blocked' },
  { id: 'vacuum-expression', attack: 'the target built by an expression', sql: "VACUUM INTO '{out}/' || 'v8.db'", expect: 'blocked' },
  { id: 'vacuum-bracket-schema', attack: 'a [bracketed] schema name', sql: "VACUUM [main] INTO '{out}/v9.db'", expect: 'blocked' },
  // SQLite compiles VACUUM of the temp schema to no instruction at all: it runs, and writes nothing.
  { id: 'vacuum-temp-schema', attack: 'copying the temp schema instead of main', sql: "VACUUM temp INTO '{out}/v10.db'", expect: 'ok' },
  { id: 'vacuum-form-feed', attack: 'a form feed as the separator', sql: "VACUUM\fINTO '{out}/v11.db'", expect: 'blocked' },
  {
    id: 'vacuum-read-handle',
    attack: 'VACUUM INTO on a read-only connection (SQLite allows it from read-only files)',
    sql: "VACUUM INTO '{out}/v12.db'",
    handle: 'read',
    expect: 'blocked',
    reason: /VACUUM INTO/
  },
  {
    id: 'vacuum-second-statement',
    attack: 'hidden behind a harmless first statement',
    sql: "select 1; VACUUM INTO '{out}/v13.db'",
    expect: 'blocked',
    reason: /one statement per call/
  },
  { id: 'vacuum-in-cte', attack: 'nested after a WITH clause', sql: "WITH t AS (SELECT 1) VACUUM INTO '{out}/v14.db'", expect: 'sqlite-error' },

  // ATTACH opens (and creates) any file as a second database.
  {
    id: 'attach-plain',
    attack: 'ATTACH DATABASE with a path outside',
    sql: "ATTACH DATABASE '{out}/a1.db' AS other",
    expect: 'blocked',
    reason: /ATTACH opens another database file/
  },
  {
    id: 'attach-comments-quotes',
    attack: 'leading comments, comments between tokens, a quoted alias',
    sql: '/* hi */ -- x\n attach/**/\'{out}/a2.db\'/**/as"x"',
    expect: 'blocked'
  },
  { id: 'attach-param', attack: 'the file as a parameter', sql: 'ATTACH ? AS x', params: ['{out}/a3.db'], expect: 'blocked' },
  { id: 'attach-uri', attack: 'a file: URI asking to create the file', sql: "ATTACH 'file:{out}/a4.db?mode=rwc' AS x", expect: 'blocked' },
  { id: 'attach-memory', attack: 'ATTACH of :memory: (ATTACH is refused in every form)', sql: "ATTACH ':memory:' AS m", expect: 'blocked' },
  { id: 'attach-expression', attack: 'the file built by an expression', sql: "attach '{out}/' || 'a6.db' as x", expect: 'blocked' },
  {
    id: 'attach-read-handle',
    attack: 'ATTACH on a read-only connection (SQLite calls ATTACH read-only)',
    sql: "ATTACH '{out}/a7.db' AS x",
    handle: 'read',
    expect: 'blocked',
    reason: /ATTACH/
  },
  {
    id: 'attach-after-semicolons',
    attack: 'empty statements before the ATTACH',
    sql: ";; ATTACH '{out}/a8.db' AS x",
    expect: 'blocked',
    reason: /does not start with a statement keyword/
  },
  {
    id: 'attach-after-nul',
    attack: 'a NUL byte hiding the rest of the text from some readers',
    sql: "select 1\u0000; ATTACH '{out}/a9.db' AS x",
    expect: 'blocked',
    reason: /NUL character/
  },
  {
    id: 'attach-in-trigger',
    attack: 'an ATTACH inside a trigger body',
    sql: "CREATE TRIGGER t AFTER INSERT ON notes BEGIN ATTACH '{out}/a10.db' AS x; END",
    expect: 'sqlite-error'
  },
  { id: 'detach-main', attack: 'DETACH changes which databases the connection holds', sql: 'DETACH DATABASE main', expect: 'blocked', reason: /DETACH/ },

  // PRAGMAs act while SQLite prepares them: one that is prepared has already happened.
  {
    id: 'pragma-temp-dir',
    attack: 'temp_store_directory moves every temp file of the process outside',
    sql: "PRAGMA temp_store_directory = '{out}'",
    expect: 'blocked',
    reason: /PRAGMA temp_store_directory with a value changes a setting/
  },
  {
    id: 'pragma-temp-dir-quoted-name',
    attack: 'the pragma name as a string literal',
    sql: "PRAGMA 'temp_store_directory' = '{out}'",
    expect: 'blocked',
    reason: /PRAGMA temp_store_directory/
  },
  { id: 'pragma-temp-dir-comment', attack: 'a comment instead of a space after PRAGMA', sql: "PRAGMA/**/temp_store_directory='{out}'", expect: 'blocked' },
  {
    id: 'pragma-temp-dir-explain',
    attack: 'EXPLAIN in front (EXPLAIN still prepares the pragma)',
    sql: "EXPLAIN PRAGMA temp_store_directory = '{out}'",
    expect: 'blocked',
    reason: /EXPLAIN is not run here/
  },
  { id: 'pragma-temp-dir-semicolon', attack: 'an empty statement in front', sql: ";PRAGMA temp_store_directory = '{out}'", expect: 'blocked' },
  { id: 'pragma-temp-dir-call-form', attack: 'the function-call form of a setting', sql: "PRAGMA temp_store_directory('{out}')", expect: 'blocked' },
  { id: 'pragma-temp-dir-mixed-case', attack: 'mixed case and a bracketed name', sql: "pRaGmA [TeMp_StOrE_dIrEcToRy] = '{out}'", expect: 'blocked' },
  {
    id: 'pragma-data-dir',
    attack: 'data_store_directory (Windows) redirects relative database paths',
    sql: "PRAGMA data_store_directory = '{out}'",
    expect: 'blocked'
  },
  {
    id: 'pragma-journal-wal-quoted-schema',
    attack: 'journal_mode=WAL through a quoted schema name',
    sql: 'PRAGMA "main".journal_mode = WAL',
    expect: 'blocked',
    reason: /PRAGMA journal_mode/
  },
  { id: 'pragma-journal-off', attack: 'journal_mode=OFF (no rollback, corruption on crash)', sql: 'PRAGMA journal_mode = OFF', expect: 'blocked' },
  {
    id: 'pragma-locking-exclusive',
    attack: 'locking_mode=EXCLUSIVE locks other readers out of the file',
    sql: 'PRAGMA locking_mode = EXCLUSIVE',
    expect: 'blocked'
  },
  { id: 'pragma-writable-schema', attack: 'writable_schema lets sqlite_schema be edited by hand', sql: 'PRAGMA writable_schema = ON', expect: 'blocked' },
  {
    id: 'pragma-trusted-schema',
    attack: 'trusted_schema=ON lets schema objects call side-effecting functions',
    sql: 'pragma trusted_schema=1',
    expect: 'blocked'
  },
  { id: 'pragma-mmap', attack: 'mmap_size maps the file into memory', sql: 'PRAGMA mmap_size = 268435456', expect: 'blocked' },
  { id: 'pragma-temp-store-file', attack: 'temp_store=FILE puts temp tables back into files under /tmp', sql: 'PRAGMA temp_store = FILE', expect: 'blocked' },
  {
    id: 'pragma-soft-heap-limit',
    attack: "a process-wide setting that also binds Airlock's own database",
    sql: 'PRAGMA soft_heap_limit = 1000',
    expect: 'blocked'
  },
  {
    id: 'pragma-query-only-off',
    attack: 'switching off query_only on a read-only connection',
    sql: 'PRAGMA query_only = OFF',
    handle: 'read',
    expect: 'blocked'
  },
  {
    id: 'pragma-via-table-function',
    attack: 'setting journal_mode through its table-valued form',
    sql: "select * from pragma_journal_mode where arg = 'wal'",
    expect: 'sqlite-error'
  },

  // Native code from a file.
  {
    id: 'load-extension',
    attack: 'load_extension loads a shared library',
    sql: "SELECT load_extension('{out}/e1.so')",
    expect: 'blocked',
    reason: /load_extension loads native code/
  },
  {
    id: 'load-extension-params',
    attack: 'load_extension with its arguments as parameters',
    sql: 'SELECT load_extension(?, ?)',
    params: ['{out}/e2.so', 'sqlite3_init'],
    expect: 'blocked'
  },
  {
    id: 'load-extension-in-cte',
    attack: 'load_extension nested in a CTE of an INSERT',
    sql: "insert into notes (body) with x(v) as (select load_extension('{out}/e3.so')) select v from x",
    expect: 'blocked',
    reason: /load_extension/
  },
  {
    id: 'fts3-tokenizer-pointer',
    attack: 'fts3_tokenizer registers a tokenizer from a raw pointer',
    sql: "select fts3_tokenizer('simple', x'0000000000000000')",
    expect: 'blocked',
    reason: /fts3_tokenizer/
  },

  // Legitimate work: the gate is not "refuse everything".
  {
    id: 'ok-select-param',
    attack: 'a parameterised read',
    sql: 'select body from notes where id = ?',
    params: [2],
    handle: 'read',
    expect: 'ok',
    rows: [{ body: 'second' }]
  },
  {
    id: 'ok-recursive-cte',
    attack: 'a recursive CTE',
    sql: 'with recursive c(n) as (select 1 union all select n + 1 from c where n < 3) select n from c',
    handle: 'read',
    expect: 'ok',
    rows: [{ n: 1 }, { n: 2 }, { n: 3 }]
  },
  { id: 'ok-pragma-table-info', attack: 'PRAGMA table_info, the usual way to see a table', sql: 'PRAGMA table_info(notes)', handle: 'read', expect: 'ok' },
  {
    id: 'ok-pragma-table-info-schema',
    attack: 'PRAGMA table_info with a schema and a quoted name',
    sql: "pragma main.table_info('notes');",
    handle: 'read',
    expect: 'ok'
  },
  {
    id: 'ok-pragma-function',
    attack: 'the table-valued pragma form',
    sql: "select name from pragma_table_info('notes') order by cid",
    handle: 'read',
    expect: 'ok',
    rows: [{ name: 'id' }, { name: 'body' }]
  },
  { id: 'ok-pragma-user-version', attack: 'reading a pragma value', sql: 'PRAGMA user_version', handle: 'read', expect: 'ok', rows: [{ user_version: 0 }] },
  { id: 'ok-insert', attack: 'an insert on a writable connection', sql: "insert into notes (body) values ('third')", expect: 'ok' },
  {
    id: 'blocked-insert-read',
    attack: 'an insert on a read-only connection',
    sql: "insert into notes (body) values ('third')",
    handle: 'read',
    expect: 'blocked',
    reason: /read-only: it needs approval/
  },
  {
    id: 'ok-update-returning',
    attack: 'an update with RETURNING',
    sql: 'update notes set body = upper(body) where id = 1 returning body',
    expect: 'ok',
    rows: [{ body: 'FIRST' }]
  },
  { id: 'ok-fts5', attack: 'creating an FTS5 table', sql: 'create virtual table docs using fts5(body)', expect: 'ok' },
  { id: 'ok-temp-table', attack: 'a temp table (kept in memory)', sql: 'create temp table scratch as select * from notes', expect: 'ok' },
  { id: 'ok-vacuum-in-place', attack: 'plain VACUUM rebuilds the database in its own file', sql: 'VACUUM', expect: 'ok' }
]
