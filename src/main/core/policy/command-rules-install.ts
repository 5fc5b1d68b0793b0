import type { CommandView } from './command-rules-words'

/**
 * The `package_install` flag: a package manager installing (or fetching and running) packages.
 * The subcommand is found after the manager's global options, valued ones included
 * (`pip -i URL install`, `npm --prefix . install`, `pnpm -C web install`, `apt-get -o X=y install`,
 * `cargo +nightly install`, `python3 -mpip install`); aliases and npm's typo-tolerant spellings
 * count (`npm it`, `npm isntall`, `gem i`). Running a package fetched for the occasion counts too:
 * `npx PKG` and `npm exec PKG` unless PKG is installed in the project (`fetchesPackage`), `pnpm dlx`,
 * `yarn dlx`, `bunx`, `uvx`, `pipx run`. `npm test`, `npm run build`, `pip list` stay ordinary.
 */

const pipInstall = new Set(['install', 'download', 'wheel'])
const npmInstall = new Set([
  'i',
  'install',
  'add',
  'ci',
  'in',
  'ins',
  'inst',
  'insta',
  'instal',
  'isnt',
  'isnta',
  'isntal',
  'isntall',
  'update',
  'up',
  'upgrade',
  'udpate',
  'it',
  'cit',
  'install-test',
  'install-ci-test',
  'clean-install',
  'isntall-clean',
  'ic',
  'install-clean'
])
/** `program` → subcommands that install packages (`''` when the bare program installs: `yarn`, `bundle`). */
const installers: Record<string, ReadonlySet<string>> = {
  pipx: new Set(['install', 'inject', 'upgrade', 'run', 'reinstall', 'upgrade-all']),
  poetry: new Set(['add', 'install', 'update']),
  npm: npmInstall,
  yarn: new Set(['', 'add', 'install', 'global', 'dlx', 'up', 'upgrade']),
  pnpm: new Set(['add', 'install', 'i', 'update', 'up', 'dlx', 'install-test', 'it']),
  bun: new Set(['add', 'install', 'i', 'x', 'update']),
  bunx: new Set(['*']),
  uvx: new Set(['*']),
  apt: new Set(['install', 'reinstall', 'upgrade', 'full-upgrade', 'dist-upgrade']),
  'apt-get': new Set(['install', 'reinstall', 'build-dep', 'upgrade', 'dist-upgrade', 'source']),
  aptitude: new Set(['install']),
  dnf: new Set(['install', 'reinstall', 'upgrade']),
  yum: new Set(['install', 'reinstall', 'upgrade']),
  zypper: new Set(['install', 'in']),
  apk: new Set(['add']),
  brew: new Set(['install', 'reinstall', 'upgrade']),
  cargo: new Set(['install', 'add', 'binstall']),
  go: new Set(['install', 'get']),
  gem: new Set(['install', 'i', 'update']),
  bundle: new Set(['', 'install', 'add', 'update']),
  conda: new Set(['install', 'create', 'update']),
  mamba: new Set(['install', 'create', 'update']),
  micromamba: new Set(['install', 'create', 'update']),
  composer: new Set(['require', 'install', 'update', 'global'])
}
/** Global options that take the next word as their value, per manager (the rest are read as possibly valued). */
const valued: Record<string, ReadonlySet<string>> = {
  pip: new Set([
    '-i',
    '--index-url',
    '--extra-index-url',
    '--proxy',
    '--cert',
    '--client-cert',
    '--cache-dir',
    '--log',
    '--timeout',
    '--retries',
    '--exists-action',
    '--trusted-host',
    '--python',
    '-r',
    '-c',
    '-e',
    '-t',
    '--src',
    '--root',
    '--prefix'
  ]),
  npm: new Set(['--prefix', '-C', '--registry', '--cache', '--userconfig', '--workspace', '-w', '--loglevel', '--tag']),
  pnpm: new Set(['-C', '--dir', '--filter', '-F', '--registry', '--workspace-dir']),
  yarn: new Set(['--cwd', '--registry', '--cache-folder', '--modules-folder']),
  'apt-get': new Set(['-o', '-c', '-t', '--option', '--config-file', '--target-release']),
  apt: new Set(['-o', '-c', '-t', '--option', '--config-file', '--target-release']),
  cargo: new Set(['-C', '--config', '-Z', '--manifest-path', '--color']),
  gem: new Set(['--source', '-s', '--config-file']),
  go: new Set(['-C'])
}
const pip = /^pip(?:\d+(?:\.\d+)?)?$/
const python = /^python(?:\d+(?:\.\d+)?)?$/

/**
 * The words that may be the subcommand: the first operand after the global options, and the one
 * after it when the first directly follows an option whose arity is unknown (`--x VALUE install`).
 */
function subcommandCandidates(program: string, args: readonly string[]): string[] {
  const known = valued[pip.test(program) ? 'pip' : program] ?? new Set<string>()
  const out: string[] = []
  for (let i = 0; i < args.length && out.length < 2; i++) {
    const arg = args[i]!
    if (arg === '--') {
      if (i + 1 < args.length) out.push(args[i + 1]!)
      break
    }
    if (arg.startsWith('+') && program === 'cargo') continue
    if (arg.length > 1 && arg.startsWith('-')) {
      if (known.has(arg)) i++
      continue
    }
    out.push(arg)
    const before = args[i - 1]
    if (!(before !== undefined && before.startsWith('-') && !before.includes('=') && !known.has(before))) break
  }
  return out
}

/** The arguments after `-m pip` / `-mpip`, when a Python runs pip as a module. */
function pipModuleArgs(args: readonly string[]): string[] | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const module = arg === '-m' ? args[i + 1] : arg.startsWith('-m') ? arg.slice(2) : undefined
    if (module !== undefined) return pip.test(module) ? args.slice(arg === '-m' ? i + 2 : i + 1) : undefined
    if (!arg.startsWith('-') || arg === '-c') return undefined
  }
  return undefined
}

/**
 * True when `npx`/`npm exec` fetches a package to run it. npm fetches whatever is not installed
 * locally, and assumes `--yes` when stdin is not a terminal (an agent's never is): so `npx PKG`
 * fetches unless PKG's program is in the project's `node_modules/.bin` (`localBin`, when the caller
 * can look) or `--no`/`--no-install`/`--offline` forbids it; `-y`, `-p`/`--package` always fetch.
 * Only the options before the package are npx's (after it they are the package's: `npx tsc -p x`).
 */
function fetchesPackage(args: readonly string[], localBin?: (name: string) => boolean, optionsOnly = false): boolean {
  const end = args.findIndex((a) => !a.startsWith('-'))
  const own = end < 0 ? args : args.slice(0, end)
  if (own.some((o) => o === '-y' || o === '--yes' || o === '-p' || o.startsWith('--package') || /^-[a-z]*y[a-z]*$/.test(o))) return true
  if (own.some((o) => o === '--no' || o === '--no-install' || o === '--offline' || o === '--prefer-offline=false' || o === '-c' || o.startsWith('--call')))
    return false
  const pkg = end < 0 ? undefined : args[end]
  if (pkg === undefined || optionsOnly) return false
  const bin = pkg.replace(/^(@[^/]+\/)?([^@]+)(@.*)?$/, '$2')
  return !(localBin?.(bin) ?? false)
}

/** True when the command installs packages, or fetches one to run it. */
export function installsPackages(view: CommandView, localBin?: (name: string) => boolean): boolean {
  const { program, args } = view
  if (pip.test(program)) return subcommandCandidates(program, args).some((s) => pipInstall.has(s))
  if (python.test(program)) {
    const rest = pipModuleArgs(args)
    return rest !== undefined && subcommandCandidates('pip', rest).some((s) => pipInstall.has(s))
  }
  if (program === 'npx') return fetchesPackage(args, localBin)
  const subs = subcommandCandidates(program, args)
  if (program === 'npm' && ['exec', 'x'].includes(subs[0] ?? ''))
    return fetchesPackage(args.slice(0, args.indexOf(subs[0]!)), undefined, true) || fetchesPackage(args.slice(args.indexOf(subs[0]!) + 1), localBin)
  if (program === 'uv') {
    const [first, second] = [subs[0], subcommandCandidates('uv', args.slice(args.indexOf(subs[0] ?? '') + 1))[0]]
    if (first === 'pip') return ['install', 'sync'].includes(second ?? '')
    if (first === 'tool') return ['install', 'run', 'upgrade'].includes(second ?? '')
    return ['add', 'sync'].includes(first ?? '')
  }
  const set = installers[program]
  if (!set) return false
  if (set.has('*')) return true
  return subs.length === 0 ? set.has('') : subs.some((s) => set.has(s))
}
