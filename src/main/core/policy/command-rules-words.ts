import type { SimpleCommand } from './command-analysis'

/**
 * The small vocabulary the command rules share: a command seen as program + argument values, option
 * splitting the way GNU tools read their arguments, and where a path word lands (filesystem root,
 * home, workspace, or unknown). Everything works on the analysis' words (quotes and escapes already
 * removed, dynamic words at their best reading), never on the raw line.
 */

/** One simple command as the rules read it: the program's basename and its argument values. */
export type CommandView = {
  /** Basename of argv[0] (`/bin/rm` is `rm`); empty when longer than any file name can be. */
  program: string
  /** argv[1..] values. */
  args: string[]
  command: SimpleCommand
}

/** The basename of a path-like word. */
export function baseName(value: string): string {
  let end = value.length
  while (end > 1 && value[end - 1] === '/') end--
  const slash = value.lastIndexOf('/', end - 1)
  return value.slice(slash + 1, end)
}

/** The view of one simple command. */
export function viewOf(command: SimpleCommand): CommandView {
  const name = baseName(command.argv[0]?.value ?? '')
  // No file name is longer than NAME_MAX (255): such a word names no program any rule knows, and
  // keeping it out of the program lookups keeps them cheap on hostile input.
  return { program: name.length > 255 ? '' : name, args: command.argv.slice(1).map((w) => w.value), command }
}

/** A command for an operator to read in a reason: its argv values, shortened. */
export function shown(view: CommandView | string[]): string {
  const words = Array.isArray(view) ? view : [view.command.argv[0]?.value ?? '', ...view.args]
  const text = words.join(' ')
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

/** Options and operands of an argument list; `valued` options take the next word as their value. */
export function splitArgs(args: readonly string[], valued: ReadonlySet<string> = new Set()): { options: string[]; operands: string[]; values: Map<string, string> } {
  const options: string[] = []
  const operands: string[] = []
  const values = new Map<string, string>()
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--') {
      operands.push(...args.slice(i + 1))
      break
    }
    if (arg.length > 1 && arg.startsWith('-')) {
      options.push(arg)
      if (valued.has(arg) && i + 1 < args.length) values.set(arg, args[++i]!)
    } else operands.push(arg)
  }
  return { options, operands, values }
}

/** True when a short-option cluster (`-rf`) or a long option in `options` names `short` / `long`. */
export function hasFlag(options: readonly string[], short: string, long?: string): boolean {
  return options.some((o) => (long !== undefined && (o === long || o.startsWith(`${long}=`))) || (/^-[A-Za-z0-9]+$/.test(o) && o.slice(1).includes(short)))
}

/** The first operand after skipping options (and the values of `valued` options), with its index. */
export function firstOperand(args: readonly string[], valued: ReadonlySet<string> = new Set()): { index: number; value: string } | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--') return i + 1 < args.length ? { index: i + 1, value: args[i + 1]! } : undefined
    if (arg.length > 1 && arg.startsWith('-')) {
      if (valued.has(arg)) i++
      continue
    }
    return { index: i, value: arg }
  }
  return undefined
}

/** Where a path word lands: from `/`, from the home folder, from the workspace root, or unknown. */
export type ResolvedPath = { anchor: 'root' | 'home' | 'workspace' | 'unknown'; segments: string[] }

const homePrefix = /^(?:~[A-Za-z0-9_.-]*|\$HOME|\$\{HOME\})(?=\/|$)/
/** Words whose value still holds an expansion the analysis could not resolve. */
const unresolved = /\$|`|<\(|>\(/

/**
 * Resolves a path word against `cwd` (segments relative to the workspace root, or null when the
 * working folder is unknown). `.`/`..` and repeated slashes are normalised; `..` above the home
 * folder reaches `/home`, above the workspace root it leaves the workspace (anchor `unknown`).
 */
export function resolvePath(value: string, cwd: readonly string[] | null): ResolvedPath {
  let anchor: ResolvedPath['anchor']
  let rest: string
  const home = homePrefix.exec(value)
  if (home) {
    anchor = 'home'
    rest = value.slice(home[0].length)
  } else if (value.startsWith('/')) {
    anchor = 'root'
    rest = value
  } else if (unresolved.test(value) || cwd === null) {
    return { anchor: 'unknown', segments: [] }
  } else {
    anchor = 'workspace'
    rest = value
  }
  if (anchor !== 'workspace' && unresolved.test(rest)) return { anchor: 'unknown', segments: [] }
  const segments: string[] = anchor === 'workspace' ? [...cwd!] : []
  for (const part of rest.split('/')) {
    if (part === '' || part === '.') continue
    if (part !== '..') segments.push(part)
    else if (segments.length > 0) segments.pop()
    else if (anchor === 'home') {
      anchor = 'root'
      segments.push('home')
    } else if (anchor === 'workspace') return { anchor: 'unknown', segments: [] }
  }
  return { anchor, segments }
}

/** True when a word holds glob characters (after the analysis, only unquoted ones remain as such). */
export const hasGlob = (value: string): boolean => /[*?[]/.test(value)

type GlobToken = { star: true } | { star: false; matches: (c: string) => boolean }

/** The tokens of a one-segment glob: `*`, `?`, `[...]` (ranges, `!`/`^` negation) and literal characters. */
function globTokens(pattern: string): GlobToken[] {
  const tokens: GlobToken[] = []
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    const end = c === '[' ? pattern.indexOf(']', i + 2) : -1
    if (c === '*') {
      if (!tokens[tokens.length - 1]?.star) tokens.push({ star: true })
    } else if (c === '?') tokens.push({ star: false, matches: () => true })
    else if (end > 0) {
      const body = pattern.slice(i + 1, end)
      const negate = body.startsWith('!') || body.startsWith('^')
      const set = negate ? body.slice(1) : body
      tokens.push({ star: false, matches: (x) => inClass(set, x) !== negate })
      i = end
    } else tokens.push({ star: false, matches: (x) => x === c })
  }
  return tokens
}

function inClass(set: string, c: string): boolean {
  for (let i = 0; i < set.length; i++) {
    if (set[i + 1] === '-' && i + 2 < set.length) {
      if (c >= set[i]! && c <= set[i + 2]!) return true
      i += 2
    } else if (set[i] === c) return true
  }
  return false
}

/**
 * True when a one-segment glob matches `name` (bash defaults: a leading `.` is only matched by a
 * literal `.`). Iterative with one backtrack point, so time stays O(pattern × name) on any input.
 */
export function globMatches(pattern: string, name: string): boolean {
  if (name.startsWith('.') && !pattern.startsWith('.')) return false
  const tokens = globTokens(pattern)
  let t = 0
  let n = 0
  let starAt = -1
  let starName = 0
  while (n < name.length) {
    const token = tokens[t]
    if (token && !token.star && token.matches(name[n]!)) {
      t++
      n++
    } else if (token?.star) {
      starAt = t++
      starName = n
    } else if (starAt >= 0) {
      t = starAt + 1
      n = ++starName
    } else return false
  }
  while (tokens[t]?.star) t++
  return t === tokens.length
}

/** True when a segment (possibly a glob) names `name`. */
export function segmentMatches(segment: string, name: string): boolean {
  return segment === name || (hasGlob(segment) && globMatches(segment, name))
}
