import { CommandRefusedError } from './command-line'

/**
 * What an option takes: nothing, a required value (`text`, or `path`, which the runner checks
 * against the workspace), or a value only when glued to it (`--color=always`, `-u` + `no`).
 */
export type OptionArity = 'flag' | 'text' | 'path' | 'optional'

/** A program's known options, keyed `-x` / `--long`; anything not listed is refused. */
export type OptionTable = {
  /** Known options and what each takes. */
  readonly options: ReadonlyMap<string, OptionArity>
  /** Options known and refused, with the reason shown to the caller. */
  readonly refused: ReadonlyMap<string, string>
  /** `-5` means a count (head, tail, grep, git log). */
  readonly numericShort: boolean
  /** Short options may be clustered (`-rn`), as getopt allows; git's revision parser does not. */
  readonly clusters: boolean
}

/** One option as the program will read it, with its value when it takes one. */
export type ParsedOption = { name: string; value?: string; arity: OptionArity }

/** An argv split the way the program's own parser splits it: options with values, then operands. */
export type ParsedArguments = { options: ParsedOption[]; operands: string[] }

/** The spelling of one table: space-separated option names per arity, and refused names with reasons. */
export type OptionTableSpec = {
  flag?: string
  text?: string
  path?: string
  optional?: string
  refused?: Record<string, string>
  numericShort?: boolean
  clusters?: boolean
}

/** Builds a table from its spelling (several specs merge, later ones win). */
export function optionTable(...specs: OptionTableSpec[]): OptionTable {
  const options = new Map<string, OptionArity>()
  const refused = new Map<string, string>()
  let numericShort = false
  let clusters = true
  for (const spec of specs) {
    for (const arity of ['flag', 'text', 'path', 'optional'] as const) {
      for (const name of (spec[arity] ?? '').split(' ')) if (name) options.set(name, arity)
    }
    for (const [name, reason] of Object.entries(spec.refused ?? {})) {
      refused.set(name, reason)
      options.delete(name)
    }
    numericShort = spec.numericShort ?? numericShort
    clusters = spec.clusters ?? clusters
  }
  return { options, refused, numericShort, clusters }
}

/**
 * Parses arguments with getopt_long's rules as GNU tools apply them (options may follow operands;
 * `--` ends options; a required value is glued or the next argument, whatever it looks like; an
 * optional value only glued). Long options must be spelled in full: getopt would accept an
 * abbreviation, and an abbreviation is exactly what a table of known names cannot vouch for.
 */
export function parseArguments(program: string, args: readonly string[], table: OptionTable): ParsedArguments {
  const parsed: ParsedArguments = { options: [], operands: [] }
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    if (arg === '--') {
      parsed.operands.push(...args.slice(index + 1))
      break
    }
    if (arg === '-' || !arg.startsWith('-')) {
      parsed.operands.push(arg)
    } else if (arg.startsWith('--')) {
      const equals = arg.indexOf('=')
      const name = equals === -1 ? arg : arg.slice(0, equals)
      const glued = equals === -1 ? undefined : arg.slice(equals + 1)
      const arity = known(program, name, arg, table)
      if (arity === 'flag' && glued !== undefined) throw new CommandRefusedError(`${program} ${name} takes no value`)
      if (arity === 'flag' || arity === 'optional') {
        parsed.options.push({ name, value: glued, arity })
      } else {
        const value = glued ?? args[++index]
        if (value === undefined) throw new CommandRefusedError(`${program} ${name} needs a value`)
        parsed.options.push({ name, value, arity })
      }
    } else if (table.numericShort && isCount(arg.slice(1))) {
      parsed.options.push({ name: '-NUM', value: arg.slice(1), arity: 'text' })
    } else {
      index = parseShortCluster(program, args, index, table, parsed.options)
    }
  }
  return parsed
}

/** Parses `-abc` / `-n5` / `-n 5` at `args[index]`; returns the index of the last argument used. */
function parseShortCluster(program: string, args: readonly string[], index: number, table: OptionTable, out: ParsedOption[]): number {
  const arg = args[index]!
  for (let at = 1; at < arg.length; at++) {
    const name = `-${arg[at]}`
    const arity = known(program, name, arg, table)
    const rest = arg.slice(at + 1)
    if (arity === 'flag') {
      out.push({ name, arity })
      if (!table.clusters && rest !== '') throw new CommandRefusedError(`${program} ${arg}: combined short options are not accepted by ${program}`)
      continue
    }
    if (arity === 'optional') {
      out.push({ name, value: rest === '' ? undefined : rest, arity })
      return index
    }
    const value = rest !== '' ? rest : args[index + 1]
    if (value === undefined) throw new CommandRefusedError(`${program} ${name} needs a value`)
    out.push({ name, value, arity })
    return rest !== '' ? index : index + 1
  }
  return index
}

function known(program: string, name: string, written: string, table: OptionTable): OptionArity {
  const reason = table.refused.get(name)
  const shown = name.startsWith('--') ? written : name
  if (reason !== undefined) throw new CommandRefusedError(`${program} ${shown} is not allowed on the host runner: ${reason}`)
  const arity = table.options.get(name)
  if (arity === undefined)
    throw new CommandRefusedError(`${program} ${name} is not an option the host runner knows for ${program} (unknown options are refused)`)
  return arity
}

/** True for a non-empty run of decimal digits (at most 12). */
function isCount(text: string): boolean {
  if (text === '' || text.length > 12) return false
  for (const char of text) if (char < '0' || char > '9') return false
  return true
}
