/**
 * The only part of the SQL gate that reads text, and why it must: SQLite carries out a PRAGMA while
 * it *prepares* it (`PRAGMA temp_store_directory = '/x'` changes the whole process's temp folder
 * before anything runs, and `EXPLAIN PRAGMA ...` too), and better-sqlite3 exposes no authorizer to
 * stop it. So a statement is classified by its first token, read exactly as SQLite's tokenizer
 * reads it, before SQLite ever sees it, and a PRAGMA is never handed to SQLite as text: it becomes
 * a SELECT on SQLite's own table-valued form (`pragma_<name>`), which SQLite offers only for
 * pragmas without side effects. Anything this reader does not fully understand is refused.
 */

/** A token as SQLite's tokenizer (tokenize.c) would cut it; `value` is the dequoted text. */
type Token = { kind: 'word' | 'quoted-name' | 'string' | 'number' | 'punct'; value: string; end: number }

/** SQLite's whitespace (tokenize.c `CC_SPACE`, and a UTF-8 BOM at a token's start): no \v, no Unicode spaces. */
function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\f' || c === '\r' || c === '\uFEFF'
}

function isLetter(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || (c.charCodeAt(0) >= 0x80 && c !== '\uFEFF')
}

/** SQLite's identifier characters (`sqlite3IsIdChar`): a keyword ends at the first other one. */
function isIdChar(c: string): boolean {
  return isLetter(c) || (c >= '0' && c <= '9') || c === '$'
}

/** SQLite folds only ASCII letters when it matches keywords and pragma names (no Unicode folding of `K` to `k`). */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32))
}

/** Index after the quoted run opened at `start` (a doubled closer is an escaped one), or -1. */
function closeQuote(sql: string, start: number, closer: string, doubles: boolean): number {
  for (let i = start + 1; i < sql.length; i++) {
    if (sql[i] !== closer) continue
    if (doubles && sql[i + 1] === closer) i++
    else return i + 1
  }
  return -1
}

/**
 * The next token from `from`, skipping whitespace and comments as SQLite does; `end` at the end of
 * the text; `undefined` for anything this reader does not know (the caller refuses it).
 */
function nextToken(sql: string, from: number): Token | 'end' | undefined {
  let i = from
  for (;;) {
    while (i < sql.length && isSpace(sql[i]!)) i++
    if (sql.startsWith('--', i)) {
      const newline = sql.indexOf('\n', i)
      i = newline < 0 ? sql.length : newline + 1
    } else if (sql.startsWith('/*', i)) {
      const close = sql.indexOf('*/', i + 2)
      i = close < 0 ? sql.length : close + 2
    } else break
  }
  if (i >= sql.length) return 'end'
  const c = sql[i]!
  if (isLetter(c)) {
    let end = i + 1
    while (end < sql.length && isIdChar(sql[end]!)) end++
    return { kind: 'word', value: sql.slice(i, end), end }
  }
  if (c === '"' || c === '`' || c === "'" || c === '[') {
    const closer = c === '[' ? ']' : c
    const end = closeQuote(sql, i, closer, c !== '[')
    if (end < 0) return undefined
    const inner = sql.slice(i + 1, end - 1)
    const value = c === '[' ? inner : inner.replaceAll(closer + closer, closer)
    return { kind: c === "'" ? 'string' : 'quoted-name', value, end }
  }
  if (c >= '0' && c <= '9') {
    let end = i + 1
    while (end < sql.length && (isIdChar(sql[end]!) || sql[end] === '.')) end++
    return { kind: 'number', value: sql.slice(i, end), end }
  }
  if (sql.startsWith('==', i)) return { kind: 'punct', value: '=', end: i + 2 }
  if ('.=();+-'.includes(c)) return { kind: 'punct', value: c, end: i + 1 }
  return undefined
}

/**
 * The keyword a statement starts with, lower-cased, exactly as SQLite will read it; `undefined`
 * when the text does not start with a bare keyword (a leading `;`, a quote, nothing).
 */
export function leadingKeyword(sql: string): string | undefined {
  const first = nextToken(sql, 0)
  return typeof first === 'object' && first.kind === 'word' ? asciiLower(first.value) : undefined
}

/**
 * Statements SQLite compiles without acting: they may be prepared as sent and judged on their
 * program. PRAGMA is missing because preparing it already acts, EXPLAIN because it prepares what
 * follows it. ATTACH, DETACH and VACUUM are here on purpose: their programs show what they would
 * reach, and sqlite-program.ts refuses them there.
 */
const preparedAsSent = new Set([
  'alter',
  'analyze',
  'attach',
  'begin',
  'commit',
  'create',
  'delete',
  'detach',
  'drop',
  'end',
  'insert',
  'reindex',
  'release',
  'replace',
  'rollback',
  'savepoint',
  'select',
  'update',
  'vacuum',
  'values',
  'with'
])

/** How the gate treats a text: prepared as sent, rewritten as a PRAGMA, or refused with a reason. */
export type StatementRoute = { route: 'prepare' } | { route: 'pragma' } | { route: 'refused'; reason: string }

/** The route of `sql`, decided before SQLite sees any of it. */
export function statementRoute(sql: string): StatementRoute {
  if (sql.includes('\0'))
    return { route: 'refused', reason: 'the SQL contains a NUL character: SQLite would stop reading there, so what ran would not be what was sent' }
  const keyword = leadingKeyword(sql)
  if (keyword === 'pragma') return { route: 'pragma' }
  if (keyword === 'explain') {
    return {
      route: 'refused',
      reason: 'EXPLAIN is not run here: SQLite would prepare the statement after it before Airlock could judge it; send that statement itself'
    }
  }
  if (keyword !== undefined && preparedAsSent.has(keyword)) return { route: 'prepare' }
  return {
    route: 'refused',
    reason: 'the SQL does not start with a statement keyword such as SELECT, INSERT or WITH (a leading semicolon, quote or symbol is not accepted)'
  }
}

/** A PRAGMA rewritten as a SELECT on its table-valued form, or the reason it cannot be. */
export type PragmaAsSelect = { pragma: string; setsValue: boolean; sql: string; params: string[] } | { refused: string }

const pragmaName = /^[a-z_][a-z0-9_]*$/

/**
 * Reads `PRAGMA [schema.]name [= value | (value)] [;]` (SQLite's grammar, parse.y) and rewrites it
 * as `SELECT * FROM "pragma_<name>"` with the value and schema bound as parameters, so none of the
 * agent's text is compiled as a PRAGMA. SQLite then decides: a pragma with side effects has no
 * table-valued form, and one that only reports a setting has no `arg` column to set it with.
 */
export function pragmaAsSelect(sql: string): PragmaAsSelect {
  const tokens: Token[] = []
  for (let at = 0; ; ) {
    const token = nextToken(sql, at)
    if (token === 'end') break
    if (token === undefined) return { refused: 'this PRAGMA contains text Airlock cannot read with certainty' }
    tokens.push(token)
    at = token.end
  }
  const isName = (t?: Token) => t !== undefined && t.kind !== 'punct' && t.kind !== 'number'
  const isPunct = (t: Token | undefined, value: string) => t?.kind === 'punct' && t.value === value
  if (isPunct(tokens.at(-1), ';')) tokens.pop()

  const dotted = isPunct(tokens[2], '.')
  const schema = dotted ? tokens[1] : undefined
  const name = dotted ? tokens[3] : tokens[1]
  if (asciiLower(tokens[0]?.value ?? '') !== 'pragma' || !isName(name) || (dotted && !isName(schema))) {
    return { refused: 'this is not a PRAGMA statement Airlock can read' }
  }
  const pragma = asciiLower(name!.value)
  if (!pragmaName.test(pragma)) return { refused: `"${name!.value}" is not a PRAGMA name` }

  let value: string | undefined
  const rest = tokens.slice(dotted ? 4 : 2)
  if (rest.length > 0) {
    const opensCall = isPunct(rest[0], '(')
    if (!opensCall && !isPunct(rest[0], '=')) return { refused: `PRAGMA ${pragma} is followed by text Airlock cannot read` }
    const sign = isPunct(rest[1], '-') || isPunct(rest[1], '+') ? rest[1]!.value : ''
    const operand = rest[sign ? 2 : 1]
    const length = (sign ? 3 : 2) + (opensCall ? 1 : 0)
    const valid = sign ? operand?.kind === 'number' : operand?.kind !== 'punct'
    if (!operand || !valid || rest.length !== length || (opensCall && !isPunct(rest.at(-1), ')'))) {
      return { refused: `PRAGMA ${pragma} has a value Airlock cannot read` }
    }
    value = sign === '-' ? `-${operand.value}` : operand.value
  }

  const conditions = [...(value !== undefined ? ['arg = ?'] : []), ...(schema ? ['schema = ?'] : [])]
  return {
    pragma,
    setsValue: value !== undefined,
    sql: `SELECT * FROM "pragma_${pragma}"${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}`,
    params: [...(value !== undefined ? [value] : []), ...(schema ? [schema.value] : [])]
  }
}
