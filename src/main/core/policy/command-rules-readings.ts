import { gitListArgv } from './command-rules-git'
import type { CommandView } from './command-rules-words'

/**
 * The readings of a command the profile's lists are matched against: the words as written; git
 * with its global options taken out (`git -C d push` → `git push`, `git-push` → `git push`); and,
 * for any program, the words from its subcommand on, whatever options come first (`npm --silent
 * publish`, `npm -ws publish` → `npm publish`). npm takes any unambiguous abbreviation of a
 * command and a set of aliases (`npm pub`, `npm rm`): its subcommand is read the way npm reads it.
 */

/** npm's commands (npm 10), for its abbreviations. */
const npmCommands = [
  'access',
  'adduser',
  'audit',
  'bugs',
  'cache',
  'ci',
  'completion',
  'config',
  'dedupe',
  'deprecate',
  'diff',
  'dist-tag',
  'docs',
  'doctor',
  'edit',
  'exec',
  'explain',
  'explore',
  'find-dupes',
  'fund',
  'get',
  'help',
  'help-search',
  'hook',
  'init',
  'install',
  'install-ci-test',
  'install-test',
  'link',
  'll',
  'login',
  'logout',
  'ls',
  'org',
  'outdated',
  'owner',
  'pack',
  'ping',
  'pkg',
  'prefix',
  'profile',
  'prune',
  'publish',
  'query',
  'rebuild',
  'repo',
  'restart',
  'root',
  'run-script',
  'sbom',
  'search',
  'set',
  'shrinkwrap',
  'star',
  'stars',
  'start',
  'stop',
  'team',
  'test',
  'token',
  'undeprecate',
  'uninstall',
  'unpublish',
  'unstar',
  'update',
  'version',
  'view',
  'whoami'
]
/** npm's aliases (and the typos it accepts), to the command they name. */
const npmAliases: Record<string, string> = {
  i: 'install',
  in: 'install',
  ins: 'install',
  inst: 'install',
  insta: 'install',
  instal: 'install',
  isnt: 'install',
  isnta: 'install',
  isntal: 'install',
  isntall: 'install',
  add: 'install',
  un: 'uninstall',
  unlink: 'uninstall',
  remove: 'uninstall',
  rm: 'uninstall',
  r: 'uninstall',
  x: 'exec',
  t: 'test',
  tst: 'test',
  run: 'run-script',
  rum: 'run-script',
  urn: 'run-script',
  c: 'config',
  ln: 'link',
  la: 'ls',
  list: 'ls',
  v: 'view',
  info: 'view',
  show: 'view',
  up: 'update',
  upgrade: 'update',
  udpate: 'update',
  s: 'search',
  se: 'search',
  find: 'search',
  it: 'install-test',
  cit: 'install-ci-test',
  ic: 'ci',
  'clean-install': 'ci',
  'install-clean': 'ci',
  'isntall-clean': 'ci',
  'clean-install-test': 'install-ci-test',
  author: 'owner',
  issues: 'bugs',
  home: 'docs',
  'add-user': 'adduser',
  'dist-tags': 'dist-tag',
  ddp: 'dedupe',
  'find-dupes': 'find-dupes',
  hlep: 'help',
  why: 'explain',
  verison: 'version',
  create: 'init',
  innit: 'init',
  login: 'login',
  logout: 'logout'
}

/** The command npm runs for a subcommand word (`pub` → `publish`, `rm` → `uninstall`, `runScript` → `run-script`). */
export function npmCommand(word: string): string {
  const name = word.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`)
  if (npmCommands.includes(name)) return name
  const alias = npmAliases[name]
  if (alias) return alias
  const matches = npmCommands.filter((c) => c.startsWith(name))
  return name.length > 0 && matches.length === 1 ? matches[0]! : word
}

/**
 * Where the subcommand may start: the first operand, and the one after it when the first directly
 * follows an option whose arity is unknown (`--loglevel silent publish`).
 */
function subcommandStarts(args: readonly string[]): number[] {
  const starts: number[] = []
  for (let i = 0; i < args.length && starts.length < 2; i++) {
    const arg = args[i]!
    if (arg === '--') break
    if (arg.length > 1 && arg.startsWith('-')) continue
    starts.push(i)
    const before = args[i - 1]
    if (!(before !== undefined && before.startsWith('-') && !before.includes('='))) break
  }
  return starts
}

/** A list entry's or a reading's words with npm's subcommand spelled as npm reads it. */
export function canonical(words: string[]): string[] {
  return words[0] === 'npm' && words.length > 1 ? [words[0], npmCommand(words[1]!), ...words.slice(2)] : words
}

/** Every reading of a command for the profile's lists (see the file comment). */
export function listReadings(view: CommandView): string[][] {
  const own = [view.program, ...view.args]
  const readings = [own]
  const git = gitListArgv(view)
  if (git) readings.push(git)
  if (view.args[0]?.startsWith('-')) for (const start of subcommandStarts(view.args)) readings.push([view.program, ...view.args.slice(start)])
  return view.program === 'npm' ? readings.map(canonical) : readings
}
