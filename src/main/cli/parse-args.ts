import { UsageError } from './usage-error'

/** How one option is read: a flag, free text, or a TCP port (0 = any free port). */
export type OptionKind = 'flag' | 'text' | 'port'

/** Parsed command line: option values by name and the positional words. */
export type ParsedArgs = { options: Record<string, string | number | boolean>; positionals: string[] }

/**
 * Reads `argv` against the options a command accepts. Unknown options, missing values and bad
 * ports are usage errors. `--no-x` is accepted only where `no-x` is declared as a flag.
 */
export function parseArgs(argv: readonly string[], accepted: Record<string, OptionKind>): ParsedArgs {
  const options: ParsedArgs['options'] = {}
  const positionals: string[] = []
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index]!
    if (word === '--') {
      positionals.push(...argv.slice(index + 1))
      break
    }
    if (!word.startsWith('--')) {
      if (word.startsWith('-') && word.length > 1) throw new UsageError(`unknown option ${word}`)
      positionals.push(word)
      continue
    }
    const [name, inlineValue] = splitOnce(word.slice(2))
    const kind = accepted[name]
    if (!kind) throw new UsageError(`unknown option --${name}`)
    if (kind === 'flag') {
      if (inlineValue !== undefined) throw new UsageError(`--${name} takes no value`)
      options[name] = true
      continue
    }
    const value = inlineValue ?? argv[++index]
    if (value === undefined || (inlineValue === undefined && value.startsWith('--'))) {
      throw new UsageError(`--${name} needs a value`)
    }
    options[name] = kind === 'port' ? parsePort(name, value) : value
  }
  return { options, positionals }
}

function splitOnce(text: string): [string, string | undefined] {
  const at = text.indexOf('=')
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)]
}

function parsePort(name: string, value: string): number {
  const port = Number(value)
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`--${name} must be a port number (0-65535), got ${value}`)
  return port
}
