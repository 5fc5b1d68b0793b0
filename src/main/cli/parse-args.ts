import { parseArgs, type ParseArgsConfig } from 'node:util'
import { UsageError } from './cli-error'

/** How one option is read: a flag, free text, or a TCP port (0 = any free port). */
export type OptionKind = 'flag' | 'text' | 'port'

/** The options one command accepts, by long name (without `--`). */
export type OptionKinds = Record<string, OptionKind>

/** The value an option of each kind parses to. */
type ValueOf<K extends OptionKind> = K extends 'flag' ? boolean : K extends 'port' ? number : string

/** Parsed command line, typed by the options the command declared; absent options are undefined. */
export type ParsedArgs<O extends OptionKinds = OptionKinds> = {
  options: { [N in keyof O]?: ValueOf<O[N]> }
  positionals: string[]
}

/** Short aliases (only `-h`); everything else is a long option, so argv reads the same in scripts. */
const shortNames: Record<string, string> = { help: 'h' }

/**
 * Reads `argv` with `node:util` `parseArgs` in strict mode against the options a command accepts.
 * Unknown options, missing or stray values, empty text and bad ports are `UsageError`s with one
 * line for the operator; words after `--` are positionals whatever they look like.
 */
export function parseCommandLine<O extends OptionKinds>(argv: readonly string[], accepted: O): ParsedArgs<O> {
  const config = {
    args: [...argv],
    options: nodeOptionsOf(accepted),
    strict: true,
    allowPositionals: true
  } satisfies ParseArgsConfig
  let parsed: ReturnType<typeof parseArgs<typeof config>>
  try {
    parsed = parseArgs(config)
  } catch (error) {
    if (!isParseArgsError(error)) throw error
    throw new UsageError(diagnose(config))
  }
  const options: Record<string, string | number | boolean> = {}
  for (const [name, value] of Object.entries(parsed.values)) {
    if (value === undefined) continue
    const kind = accepted[name]!
    if (kind === 'flag') options[name] = value === true
    else if (kind === 'port') options[name] = parsePort(name, String(value))
    else if (value === '') throw new UsageError(`--${name} needs a value`)
    else options[name] = String(value)
  }
  return { options: options as ParsedArgs<O>['options'], positionals: parsed.positionals }
}

function nodeOptionsOf(accepted: OptionKinds): NonNullable<ParseArgsConfig['options']> {
  return Object.fromEntries(
    Object.entries(accepted).map(([name, kind]) => [
      name,
      { type: kind === 'flag' ? ('boolean' as const) : ('string' as const), ...(shortNames[name] ? { short: shortNames[name] } : {}) }
    ])
  )
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')
}

/**
 * Node's messages span several lines and suggest `--` tricks; the tokens of a lenient parse say
 * exactly which word was wrong, so the operator gets one line naming it.
 */
function diagnose(config: ParseArgsConfig & { options: NonNullable<ParseArgsConfig['options']> }): string {
  const { tokens } = parseArgs({ ...config, strict: false, tokens: true })
  for (const token of tokens) {
    if (token.kind !== 'option') continue
    const spec = config.options[token.name]
    if (!spec) return `unknown option ${token.rawName}`
    if (spec.type === 'boolean' && token.value !== undefined) return `${token.rawName} takes no value`
    if (spec.type === 'string' && (token.value === undefined || (!token.inlineValue && token.value.startsWith('-')))) {
      return `${token.rawName} needs a value`
    }
  }
  return 'the command line could not be read (see airlock --help)'
}

function parsePort(name: string, value: string): number {
  const port = Number(value)
  if (!/^\d{1,5}$/.test(value) || port > 65535) {
    throw new UsageError(`--${name} must be a port number (0-65535), got ${JSON.stringify(value)}`)
  }
  return port
}

/** A required argument or option value checked against a schema: missing or invalid is a usage error naming `what` and the value. */
export function parseValue<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: { message: string }[] } } },
  value: string | undefined,
  what: string
): T {
  if (value === undefined || value === '') throw new UsageError(`${what} is missing`)
  const parsed = schema.safeParse(value)
  if (!parsed.success) throw new UsageError(`${what} ${JSON.stringify(value)}: ${parsed.error.issues.map((i) => i.message).join('; ')}`)
  return parsed.data
}
