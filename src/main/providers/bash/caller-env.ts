import { CommandRefusedError } from './command-line'

/** A rule for one variable's value: what it must look like, said for people. */
type ValueRule = { accepts: (value: string) => boolean; expected: string }

const charsIn = (allowed: string, max: number) => (value: string) => value.length <= max && [...value].every((char) => allowed.includes(char))
const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const printable = (max: number) => (value: string) => value.length <= max && [...value].every((char) => char >= ' ' && char <= '~')

// A locale name never contains '/': glibc would read a name with one as a path.
const locale: ValueRule = { accepts: charsIn(`${alnum}_.@-`, 64), expected: 'a locale name such as C.UTF-8' }
const localeList: ValueRule = { accepts: charsIn(`${alnum}_.@-:`, 256), expected: 'locale names separated by colons' }
// A zone name or POSIX TZ rule; never a file (`/path`, `:path`) and never `..`.
const zone: ValueRule = {
  accepts: (value) => charsIn(`${alnum}_+-/,.<>`, 64)(value) && !value.startsWith('/') && !value.split('/').includes('..'),
  expected: 'a zone name such as Europe/Paris or UTC'
}
const count: ValueRule = { accepts: charsIn('0123456789', 6), expected: 'a number' }
const word: ValueRule = { accepts: charsIn(`${alnum}_.+-`, 64), expected: 'a word' }
const setting: ValueRule = { accepts: printable(4096), expected: 'printable text' }

/**
 * The caller's variables the host runner passes on: locale, time zone, terminal and colour
 * settings, which change how output looks and nothing else. Everything else (PATH, HOME, LD_*,
 * GIT_*, *_OPTIONS, *_CONFIG_PATH, ...) could change which program runs, what it loads or what it reads.
 */
const callerVariables: Readonly<Record<string, ValueRule>> = {
  LANG: locale,
  LANGUAGE: localeList,
  ...Object.fromEntries(
    ['ALL', 'CTYPE', 'COLLATE', 'MESSAGES', 'NUMERIC', 'TIME', 'MONETARY', 'PAPER', 'NAME', 'ADDRESS', 'TELEPHONE', 'MEASUREMENT', 'IDENTIFICATION'].map(
      (name) => [`LC_${name}`, locale]
    )
  ),
  TZ: zone,
  TERM: word,
  COLUMNS: count,
  LINES: count,
  TABSIZE: count,
  NO_COLOR: setting,
  CLICOLOR: setting,
  CLICOLOR_FORCE: setting,
  LS_COLORS: setting,
  GREP_COLORS: setting,
  TIME_STYLE: setting,
  QUOTING_STYLE: word
}

/** The names the host runner accepts, for messages and the probe. */
export const acceptedCallerVariables: readonly string[] = Object.keys(callerVariables)

const validName = (name: string) => name.length > 0 && !'0123456789'.includes(name[0]!) && charsIn(`${alnum}_`, 128)(name)

/**
 * Checks the caller's environment for the host runner and returns it unchanged when every
 * variable is on the allowlist with a value of the expected shape. Otherwise refuses, naming every
 * offending variable: nothing is dropped silently, so the caller learns why a setting did not apply.
 */
export function admitCallerEnv(env: Record<string, string> | undefined): Record<string, string> {
  const entries = Object.entries(env ?? {})
  for (const [name, value] of entries) {
    if (!validName(name) || typeof value !== 'string' || value.includes('\0')) {
      throw new CommandRefusedError(`environment variable ${JSON.stringify(name).slice(0, 60)} is not a valid name/value`)
    }
  }
  const refused = entries.filter(([name]) => !Object.hasOwn(callerVariables, name)).map(([name]) => name)
  if (refused.length > 0) {
    const subject = refused.length === 1 ? `environment variable ${refused[0]} is` : `environment variables ${refused.join(', ')} are`
    throw new CommandRefusedError(
      `${subject} not accepted by the host runner: it passes only ${acceptedCallerVariables.filter((n) => !n.startsWith('LC_')).join(', ')} and LC_*; ` +
        'other variables (PATH, HOME, LD_*, GIT_*, ...) could change which program runs, what it loads or what it reads'
    )
  }
  for (const [name, value] of entries) {
    const rule = callerVariables[name]!
    if (!rule.accepts(value)) throw new CommandRefusedError(`environment variable ${name} must be ${rule.expected} on the host runner`)
  }
  return Object.fromEntries(entries)
}
