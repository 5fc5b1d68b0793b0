/**
 * Text bash turns into code at run time, beyond `eval` and `sh -c` (see `wrappers.ts` for `trap`,
 * `mapfile -C`, `compgen -C`, `parallel`…):
 * - variables whose value is code: `PROMPT_COMMAND` (run before each prompt), pagers, editors and
 *   `LESSOPEN` (`commandVariables`, run by the programs that read them), `PS0`-`PS4` (prompt
 *   expansion runs their `$(…)`), `BASH_FUNC_name%%` (a function imported from the environment):
 *   the value is parsed as a script when static, else `command.dynamic`; `BASH_ENV` and `ENV` name
 *   a file a shell sources first: `command.dynamic`.
 * - arithmetic evaluation (`$((x))`, `((x))`, `let`, `[[ $x -eq 1 ]]`, `declare -i`, subscripts,
 *   `${!x}`, `test -v`): the value of a variable used there is evaluated again, and a subscript
 *   in it (`x='a[$(…)]'`) runs its substitutions. A variable whose known value holds `$(` or a
 *   backtick ("code-like") used in such a context is `command.dynamic`; so is `${x@P}` (prompt
 *   expansion of the value) unless the value is known and harmless, and a name argument holding a
 *   subscript with a substitution (`unset 'a[$(…)]'`, `printf -v 'a[$(…)]'`).
 * - `declare "x=(…)"` / `declare 'a[…]=1'`: a quoted compound or subscripted assignment is parsed
 *   again by `declare`: parsed as a script when static, else `command.dynamic`.
 * - `hash -p PATH NAME` renames a program, like an alias: `command.alias`.
 * Not seen: variables set by `read`/`mapfile` (their values come from stdin) used in arithmetic.
 */
import type { Node } from 'web-tree-sitter'
import type { LineWalker } from './walk'
import type { WalkContext } from './walk-context'
import { clip, type EvalWord, type VariableValue } from './words'

const identifier = /[A-Za-z_][A-Za-z0-9_]*/g

/**
 * Variables whose value a program runs as a command line: pagers and editors (man, git, less,
 * systemctl, sudoedit), `less`'s input filters, git's and rsync's remote shells, askpass helpers.
 */
const commandVariables = new Set([
  'PAGER',
  'MANPAGER',
  'GIT_PAGER',
  'SYSTEMD_PAGER',
  'EDITOR',
  'VISUAL',
  'SUDO_EDITOR',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'SYSTEMD_EDITOR',
  'LESSOPEN',
  'LESSCLOSE',
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'GIT_EXTERNAL_DIFF',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_PROXY_COMMAND',
  'BROWSER',
  'RSYNC_RSH',
  'RSYNC_CONNECT_PROG'
])

/** True when a value assigned to a variable would run code if evaluated again (arithmetic, `@P`). */
export function codeLike(value: string, variables: Map<string, VariableValue>): boolean {
  if (/\$\(|`/.test(value)) return true
  return value.includes('[') && (value.match(identifier) ?? []).some((name) => variables.get(name)?.code === true)
}

/** An assignment whose value is code a shell runs later (`PROMPT_COMMAND=…`, `PS1=…`, `BASH_ENV=…`). */
export function assignmentCode(w: LineWalker, name: string, value: EvalWord, ctx: WalkContext): void {
  const base = name.replace(/\[.*$/s, '')
  const wrappers = [...ctx.wrappers, { argv: [`${base}=`] }]
  if (base === 'BASH_ENV' || base === 'ENV') {
    if (value.value !== '') w.concern('command.dynamic', `${base} names a file a shell runs first (${clip(value.value, 60)})`)
    return
  }
  let code: string | null = null
  if (base === 'PROMPT_COMMAND') code = value.value
  else if (/^PS[0-4]$/.test(base)) code = expansionScript(value.value)
  else if (base.startsWith('BASH_FUNC_')) code = `f${value.value}`
  // `LESSOPEN='|cmd %s'`: the leading `|`/`||` (pipe mode) and `-` are less's syntax, not the command's.
  else if (commandVariables.has(base)) code = value.value.replace(/^\s*\|{0,2}-?/, '')
  if (code === null) return
  if (!value.static) w.concern('command.dynamic', `the code in ${base} is only known at run time`)
  else w.queueScript(code, { ...ctx, wrappers })
}

/** A script that expands `text` the way a prompt or a here-document does (its `$(…)` run). */
function expansionScript(text: string): string {
  let end = 'AIRLOCK_END'
  while (text.includes(end)) end += '_'
  return `: <<${end}\n${text}\n${end}\n`
}

/** Checks a node bash evaluates arithmetically, or an expansion that evaluates a value again. */
export function evaluatedNode(w: LineWalker, node: Node): void {
  const type = node.type
  const text = node.text
  if (type === 'expansion' && /@P\}$/.test(text)) {
    const known = w.variables.get(text.slice(2, -3))
    if (!known || known.code) w.concern('command.dynamic', `${clip(text, 40)} runs the value as a prompt string`)
    return
  }
  const arithmetic =
    type === 'arithmetic_expansion' ||
    type === 'c_style_for_statement' ||
    type === 'subscript' ||
    (type === 'expansion' && (text.startsWith('${!') || text.includes('['))) ||
    (type === 'compound_statement' && text.startsWith('((')) ||
    (type === 'test_command' && /\s-(eq|ne|lt|le|gt|ge|v|R)\s/.test(text))
  if (!arithmetic) return
  for (const ref of node.descendantsOfType(['variable_name', 'word'])) {
    if (ref && w.variables.get(ref.text)?.code) {
      w.concern('command.dynamic', `the value of ${ref.text} is evaluated as arithmetic, which runs its substitutions`)
      return
    }
  }
}

const nameTakers = new Set(['let', 'declare', 'typeset', 'local', 'readonly', 'export', 'test', '[', 'unset', 'printf', 'read', 'mapfile', 'readarray', 'wait'])

/** Checks one command's words: arithmetic arguments and name arguments evaluated again. */
export function evaluatedArguments(w: LineWalker, argv: EvalWord[]): void {
  const name = argv[0]?.value ?? ''
  if (name === 'hash' && argv.some((x) => x.value.startsWith('-') && x.value.includes('p'))) {
    w.concern('command.alias', `hash -p renames a program for the rest of the line (${clip(argv.map((x) => x.value).join(' '), 60)})`)
  }
  if (!nameTakers.has(name)) return
  const arithmetic = name === 'let' || ((name === 'declare' || name === 'typeset' || name === 'local') && argv.some((x) => /^-[a-zA-Z]*i/.test(x.value)))
  for (const word of argv.slice(1)) {
    const v = word.value
    const subscripted = /\[[^]*(\$\(|`)/.test(v)
    const refs = arithmetic || name === 'test' || name === '[' ? (v.match(identifier) ?? []).some((id) => w.variables.get(id)?.code) : false
    if (subscripted || refs) {
      w.concern('command.dynamic', `${name} evaluates ${clip(v, 60)} again, which runs its substitutions`)
      return
    }
  }
}

/** `declare "x=(…)"`, `declare 'a[…]=1'`: a quoted argument `declare` parses as an assignment. */
export function quotedDeclaration(w: LineWalker, word: EvalWord, ctx: WalkContext, command: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\[[^]*\])?\+?=/.test(word.value)) return
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\[|\+?=\()/.test(word.value)) return
  if (!word.static) w.concern('command.dynamic', `${command} parses ${clip(word.value, 60)} as an assignment only known at run time`)
  else w.queueScript(word.value, { ...ctx, wrappers: [...ctx.wrappers, { argv: [command] }] })
}
