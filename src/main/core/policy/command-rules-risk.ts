import type { CommandPolicyInput } from './command-analysis'
import { isDownloader } from './command-rules-download'
import { deletionTargets, gitSubcommand, insideScratch, protectedKind, unknownTarget, writeTargets } from './command-rules-targets'
import { firstOperand, resolvePath, shown, splitArgs, type CommandView } from './command-rules-words'

/**
 * The risk flags of a command line (SPEC §6.3), in the order they are reported: `network`,
 * `package_install`, `deletion` (outside `scratch/`), `vcs_write` (.git/, .github/), `config_write`
 * (package.json, .env*, shell rc files, `git config` setting a value), `long_runtime`. A flag makes
 * the line ask under `ask: on_risk`; it never blocks on its own.
 */

/** Risk flags in reporting order (the first one names the rule `risk.<flag>`). */
export const riskFlagOrder = ['network', 'package_install', 'deletion', 'vcs_write', 'config_write', 'long_runtime'] as const

/** A `run_command` timeout above this many seconds is a long runtime. */
export const longRuntimeSeconds = 300

const pipSubcommands = new Set(['install', 'download', 'wheel'])
const npmInstall = new Set(['i', 'install', 'add', 'ci', 'in', 'ins', 'inst', 'insta', 'instal', 'isnt', 'isnta', 'isntal', 'isntall', 'update', 'up', 'upgrade'])
/** `program` → subcommands that install packages (`''` when the bare program installs: `yarn`, `bundle`). */
const installers: Record<string, ReadonlySet<string>> = {
  pipx: new Set(['install', 'inject', 'upgrade', 'run']),
  poetry: new Set(['add', 'install', 'update']),
  npm: npmInstall,
  yarn: new Set(['', 'add', 'install', 'global']),
  pnpm: new Set(['add', 'install', 'i', 'update', 'up']),
  bun: new Set(['add', 'install', 'i']),
  apt: new Set(['install', 'reinstall']),
  'apt-get': new Set(['install', 'reinstall', 'build-dep']),
  aptitude: new Set(['install']),
  dnf: new Set(['install', 'reinstall']),
  yum: new Set(['install', 'reinstall']),
  zypper: new Set(['install', 'in']),
  apk: new Set(['add']),
  brew: new Set(['install', 'reinstall']),
  cargo: new Set(['install', 'add']),
  go: new Set(['install', 'get']),
  gem: new Set(['install']),
  bundle: new Set(['', 'install', 'add']),
  conda: new Set(['install', 'create']),
  mamba: new Set(['install', 'create']),
  micromamba: new Set(['install', 'create']),
  composer: new Set(['require', 'install', 'update'])
}
const pip = /^pip(?:\d+(?:\.\d+)?)?$/
const python = /^python(?:\d+(?:\.\d+)?)?$/

/** True when the command installs packages (pip, npm, apt, cargo, go, gem...). */
export function installsPackages(view: CommandView): boolean {
  const { program, args } = view
  const sub = firstOperand(args)
  if (pip.test(program)) return pipSubcommands.has(sub?.value ?? '')
  if (python.test(program)) {
    const module = args.indexOf('-m')
    return module >= 0 && pip.test(args[module + 1] ?? '') && pipSubcommands.has(firstOperand(args.slice(module + 2))?.value ?? '')
  }
  if (program === 'uv') {
    if (sub?.value === 'pip') return ['install', 'sync'].includes(firstOperand(args.slice(sub.index + 1))?.value ?? '')
    if (sub?.value === 'tool') return firstOperand(args.slice(sub.index + 1))?.value === 'install'
    return ['add', 'sync'].includes(sub?.value ?? '')
  }
  return installers[program]?.has(sub?.value ?? '') ?? false
}

const networkPrograms = new Set(['ssh', 'scp', 'sftp', 'ping', 'ping6', 'dig', 'nslookup', 'host', 'traceroute', 'tracepath', 'mtr', 'whois', 'telnet', 'ftp', 'tftp', 'nc', 'ncat', 'netcat', 'socat', 'nmap'])
const gitNetwork = new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote', 'submodule', 'remote'])

/** True when the command reaches the network. */
export function usesNetwork(view: CommandView): boolean {
  const { program, args } = view
  if (networkPrograms.has(program) || isDownloader(view) || installsPackages(view)) return true
  if (program === 'rsync') return splitArgs(args).operands.some((o) => /^[^/]*:/.test(o) || o.startsWith('rsync://'))
  if (program === 'docker' || program === 'podman') return ['pull', 'push', 'login', 'search'].includes(firstOperand(args)?.value ?? '')
  const git = gitSubcommand(view)
  return git !== undefined && gitNetwork.has(git.name)
}

/** True when `git config` sets, adds, removes or edits a value (not `--get`, `--list`, `-l`). */
function setsGitConfig(view: CommandView): boolean {
  const git = gitSubcommand(view)
  if (git?.name !== 'config') return false
  const { options, operands } = splitArgs(git.args, new Set(['-f', '--file', '--blob', '--type', '--default']))
  if (options.some((o) => /^--(?:get|get-all|get-regexp|get-urlmatch|list|show-origin|show-scope|name-only)$/.test(o) || o === '-l')) return false
  if (options.some((o) => /^--(?:unset|unset-all|add|replace-all|rename-section|remove-section|edit)$/.test(o) || o === '-e')) return true
  if (['set', 'unset', 'rename-section', 'remove-section', 'edit'].includes(operands[0] ?? '')) return true
  if (['get', 'list'].includes(operands[0] ?? '')) return false
  return operands.length >= 2
}

/**
 * The working folders (workspace-relative segments, null when unknown) each command may run in:
 * `input.cwd`, plus every folder an earlier `cd`/`pushd` in the line moved to. A path must be safe
 * from all of them, so `cd .. && rm -rf scratch/x` is not mistaken for a scratch deletion.
 */
export function workingFolders(views: readonly CommandView[], cwd: string | undefined): (string[] | null)[][] {
  const start = resolvePath(cwd ?? '.', [])
  let current: (string[] | null)[] = [start.anchor === 'workspace' ? start.segments : null]
  return views.map((view) => {
    const here = current
    if (view.program === 'cd' || view.program === 'pushd' || view.program === 'popd') {
      const target = view.program === 'popd' ? undefined : firstOperand(view.args)?.value
      const moved = here.map((folder) => {
        if (target === undefined || target === '-' || folder === null) return null
        const path = resolvePath(target, folder)
        return path.anchor === 'workspace' ? path.segments : null
      })
      current = [...here, ...moved]
    }
    return here
  })
}

/** The risk flags of a line, in `riskFlagOrder`, each with the first command that raised it. */
export function riskFlagsOf(views: readonly CommandView[], input: CommandPolicyInput): { flag: string; why: string }[] {
  const found = new Map<string, string>()
  const raise = (flag: string, why: string) => {
    if (!found.has(flag)) found.set(flag, why)
  }
  const folders = workingFolders(views, input.cwd)
  views.forEach((view, i) => {
    if (input.network !== 'none' && usesNetwork(view)) raise('network', `${shown(view)} reaches the network`)
    if (installsPackages(view)) raise('package_install', `${shown(view)} installs packages`)
    const deleted = deletionTargets(view)
    const outside = deleted?.find((target) => target === unknownTarget || !insideScratch(target, folders[i]!))
    if (outside !== undefined) raise('deletion', outside === unknownTarget ? `${shown(view)} deletes paths only known at run time` : `${shown(view)} deletes ${outside}, outside scratch/`)
    for (const target of [...writeTargets(view), ...(deleted ?? [])]) {
      const kind = protectedKind(target, folders[i]!)
      if (kind) raise(kind, `${shown(view)} writes ${target}`)
    }
    if (setsGitConfig(view)) raise('config_write', `${shown(view)} sets a git configuration value`)
  })
  if (input.timeoutSeconds !== undefined && input.timeoutSeconds > longRuntimeSeconds) raise('long_runtime', `timeout of ${input.timeoutSeconds} s is above ${longRuntimeSeconds} s`)
  return riskFlagOrder.filter((flag) => found.has(flag)).map((flag) => ({ flag, why: found.get(flag)! }))
}
