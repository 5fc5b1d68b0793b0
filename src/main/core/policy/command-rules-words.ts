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
export function splitArgs(
  args: readonly string[],
  valued: ReadonlySet<string> = new Set()
): { options: string[]; operands: string[]; values: Map<string, string> } {
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

/** True when a short-option cluster (`-rf`) or a long option (or its prefix) in `options` names `short` / `long`. */
export function hasFlag(options: readonly string[], short: string, long?: string): boolean {
  return options.some((o) => (long !== undefined && isLong(o, long)) || (/^-[A-Za-z0-9]+$/.test(o) && o.slice(1).includes(short)))
}

/**
 * True when `option` names the long option `long` (`--recursive`), as getopt_long reads it: the
 * whole name or any prefix of it (`--rec`), with or without `=value`. An ambiguous prefix makes
 * the program stop with an error, so reading every prefix as `long` never misses what runs.
 */
export function isLong(option: string, long: string): boolean {
  const equals = option.indexOf('=')
  const name = equals < 0 ? option : option.slice(0, equals)
  return name.length > 2 && name.startsWith('--') && long.startsWith(name)
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

/** A working folder relative paths start from (`cd /` makes it the root); null when unknown. */
export type Folder = { anchor: 'root' | 'home' | 'workspace'; segments: readonly string[] } | null

/** The workspace root: where a command runs when nothing moved it. */
export const workspaceRoot: Folder = { anchor: 'workspace', segments: [] }

/**
 * The home folder however it is spelled: `~`, `~user`, `$HOME`, `${HOME}`, and the expansions of
 * HOME that give its value when it is set (`${HOME:?}`, `${HOME:-x}`, `${HOME-x}`, `${HOME:=x}`).
 */
const homePrefix = /^(?:~[A-Za-z0-9_.-]*|\$HOME(?![A-Za-z0-9_])|\$\{HOME(?::?[-=?][^}]*)?\})(?=\/|$)/
/** Words whose value still holds an expansion the analysis could not resolve. */
const unresolved = /\$|`|<\(|>\(/
/** `/proc/<pid>/root` (and `self`, `thread-self`) is the process' view of `/`. */
const procRoot = /^(?:self|thread-self|\d+|[^/]*[*?[][^/]*)$/

/**
 * Resolves a path word against the working folder `cwd`. `.`/`..` and repeated slashes are
 * normalised; `..` above the home folder reaches `/home`, above `/` stays at `/`, above the
 * workspace root leaves the workspace (anchor `unknown`); `/proc/self/root/x` is `/x`.
 */
export function resolvePath(value: string, cwd: Folder): ResolvedPath {
  let anchor: ResolvedPath['anchor']
  let rest: string
  let base: readonly string[] = []
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
    anchor = cwd.anchor
    rest = value
    base = cwd.segments
  }
  if (unresolved.test(rest)) return { anchor: 'unknown', segments: [] }
  const segments = [...base]
  for (const part of rest.split('/')) {
    if (part === '' || part === '.') continue
    if (part !== '..') segments.push(part)
    else if (segments.length > 0) segments.pop()
    else if (anchor === 'home') {
      anchor = 'root'
      segments.push('home')
    } else if (anchor === 'workspace') return { anchor: 'unknown', segments: [] }
    if (anchor === 'root' && segments.length === 3 && segments[0] === 'proc' && segments[2] === 'root' && procRoot.test(segments[1]!)) segments.length = 0
  }
  return { anchor, segments }
}

export { globMatches, hasGlob, segmentMatches, segmentMatchesFolded } from './command-rules-glob'

/** A denylist family: the reason `view` (running in any of `folders`) hits it, or undefined. */
export type Family = (view: CommandView, all: readonly CommandView[], folders: readonly Folder[]) => string | undefined

/**
 * The values of short options read the way getopt reads a cluster: `-fsSLo out` and `-oout` both
 * give `o` → `out` when `o` is in `valued` (the letters that take a value). Long options are not read.
 */
export function shortValues(args: readonly string[], valued: string): { letter: string; value: string }[] {
  const found: { letter: string; value: string }[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--') break
    if (!/^-[^-]/.test(arg)) continue
    for (let j = 1; j < arg.length; j++) {
      if (!valued.includes(arg[j]!)) continue
      const value = j + 1 < arg.length ? arg.slice(j + 1) : args[++i]
      if (value !== undefined) found.push({ letter: arg[j]!, value })
      break
    }
  }
  return found
}
