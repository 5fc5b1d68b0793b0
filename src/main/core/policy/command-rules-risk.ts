import type { CommandPolicyInput } from './command-analysis'
import { isDownloader, isSocketPath } from './command-rules-download'
import { resolveAll } from './command-rules-folders'
import { gitDiscards, gitSubcommand, setsGitConfig } from './command-rules-git'
import { installsPackages } from './command-rules-install'
import { deletionTargets, insideScratch, moveSources, protectedKind, unknownTarget, writeTargets } from './command-rules-targets'
import { firstOperand, splitArgs, shown, type CommandView, type Folder } from './command-rules-words'

/**
 * The risk flags of a command line (SPEC §6.3), in the order they are reported: `network`,
 * `package_install` (`./command-rules-install.ts`), `deletion` (outside `scratch/`, including moving
 * files out of the workspace and deleting through a symlink the line made in `scratch/`, and git
 * commands that discard work: `reset --hard`, `checkout -- .`, `push --force`…, see `gitDiscards`),
 * `vcs_write` and `config_write` (the protected names of `./protected-names.ts`, `git config`
 * setting a value, `npm pkg set`, and `crontab`/`at`, which install code that runs later),
 * `long_runtime`. A flag makes the line ask under `ask: on_risk`; it never blocks on its own.
 */

/** Risk flags in reporting order (the first one names the rule `risk.<flag>`). */
export const riskFlagOrder = ['network', 'package_install', 'deletion', 'vcs_write', 'config_write', 'long_runtime', 'recoverable_deletion'] as const

/**
 * Flags recorded on the row that never ask by themselves: `recoverable_deletion` is a deletion or
 * a discarding git command inside the workspace whose previous content the checkpoint keeps, so the
 * operator can undo it (issue 28) instead of approving it beforehand.
 */
export const informationalFlags: ReadonlySet<string> = new Set(['recoverable_deletion'])

/**
 * The only deleting programs a checkpoint vouches for: they remove what they name and never follow
 * a link inside it (`shred`, `find -delete`, `rsync --delete`, `tar --remove-files`… are judged as
 * before: they ask).
 */
const recoverableDeleters = new Set(['rm', 'rmdir', 'unlink'])

/**
 * What else a line may run for its deletion to stay recoverable: programs that cannot make a link,
 * swap a folder or run code. Anything else on the line (`ln`, `mv`, `tar`, `git checkout`, a script,
 * an interpreter) could point a deleted path elsewhere before the deletion: the line asks.
 */
const harmlessBeside = new Set([
  'echo',
  'printf',
  'true',
  'false',
  ':',
  'cd',
  'pwd',
  'ls',
  'test',
  '[',
  'cat',
  'wc',
  'grep',
  'sleep',
  'date',
  'whoami',
  'id',
  'head',
  'tail',
  'sort',
  'uniq',
  'du',
  'df',
  'stat'
])

/** Git options and variables that send a git command somewhere other than the folder it runs in. */
const gitElsewhere = /^(?:-C|--work-tree|--git-dir|--namespace)(?:=|$)/

/** The part of a path before its first glob segment (what a glob can match lies below it); undefined when the path climbs (`..`). */
const beforeGlob = (segments: readonly string[]): { prefix: string[]; glob: boolean } | undefined => {
  if (segments.some((segment) => segment === '..')) return undefined
  const at = segments.findIndex((segment) => /[*?[\]{}]/.test(segment))
  return at < 0 ? { prefix: [...segments], glob: false } : { prefix: segments.slice(0, at), glob: true }
}

/** A `run_command` timeout above this many seconds is a long runtime. */
export const longRuntimeSeconds = 300

export { installsPackages } from './command-rules-install'

const networkPrograms = new Set([
  'ssh',
  'scp',
  'sftp',
  'ping',
  'ping6',
  'dig',
  'nslookup',
  'host',
  'traceroute',
  'tracepath',
  'mtr',
  'whois',
  'telnet',
  'ftp',
  'tftp',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'nmap',
  'gh',
  'hub',
  'glab',
  'aws',
  'gcloud',
  'gsutil',
  'az',
  'twine',
  'kubectl',
  'helm',
  'terraform',
  'tofu',
  'pulumi',
  'flyctl',
  'vercel',
  'netlify',
  'heroku',
  'doctl',
  'rclone',
  's3cmd'
])
const gitNetwork = new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote', 'submodule', 'remote', 'send-email', 'request-pull', 'archive'])
const publishers = new Set(['npm', 'pnpm', 'yarn', 'cargo', 'poetry', 'gem', 'bun', 'uv', 'flit', 'hatch'])
const publishVerbs = new Set(['publish', 'unpublish', 'deprecate', 'push', 'login', 'adduser', 'owner', 'dist-tag', 'yank', 'access', 'token'])

/** True when the command reaches the network. */
export function usesNetwork(view: CommandView, localBin?: (name: string) => boolean): boolean {
  const { program, args } = view
  if (networkPrograms.has(program) || isDownloader(view) || installsPackages(view, localBin)) return true
  if (view.command.redirects.some((r) => isSocketPath(r.target.value))) return true
  const { operands } = splitArgs(args)
  if (program === 'rsync') return operands.some((o) => /^[^/]*:/.test(o) || o.startsWith('rsync://'))
  if (program === 'docker' || program === 'podman') return ['pull', 'push', 'login', 'search'].includes(firstOperand(args)?.value ?? '')
  if (publishers.has(program) && publishVerbs.has(operands[0] ?? '')) return true
  const git = gitSubcommand(view)
  return git !== undefined && gitNetwork.has(git.name)
}

/** Config writes a command makes without naming the file: `npm pkg set`, `crontab`, `at`. */
function configCommand(view: CommandView): string | undefined {
  const { program, args } = view
  const { options, operands } = splitArgs(args)
  if (setsGitConfig(view)) return `${shown(view)} sets a git configuration value`
  if ((program === 'npm' || program === 'pnpm') && operands[0] === 'pkg' && ['set', 'delete', 'fix'].includes(operands[1] ?? ''))
    return `${shown(view)} edits package.json`
  if (program === 'npm' && operands[0] === 'set-script') return `${shown(view)} edits package.json scripts`
  if (program === 'crontab' && !options.some((o) => /^-[a-zA-Z]*l/.test(o))) return `${shown(view)} installs a crontab: code that runs later, outside this call`
  if ((program === 'at' || program === 'batch') && !options.some((o) => /^-[a-zA-Z]*[lrd]/.test(o)))
    return `${shown(view)} schedules code that runs later, outside this call`
  return undefined
}

/** Paths under which the line made a symlink in `scratch/`: deleting through one leaves scratch/. */
function scratchLinks(views: readonly CommandView[], folders: readonly (readonly Folder[])[]): string[][] {
  return views.flatMap((view, i) =>
    view.program === 'ln'
      ? writeTargets(view).flatMap((target) =>
          resolveAll(target, folders[i]!)
            .filter((p) => p.anchor === 'workspace' && p.segments[0] === 'scratch')
            .map((p) => p.segments)
        )
      : []
  )
}

const under = (path: readonly string[], prefix: readonly string[]) => prefix.length <= path.length && prefix.every((s, i) => path[i] === s)

/**
 * The risk flags of a line, in `riskFlagOrder`, each with the first command that raised it. A
 * deletion (or a git command that discards work, not a push) inside the workspace is
 * `recoverable_deletion` instead of `deletion` when `input.recoverable` vouches for every path it
 * names — never for a path only known at run time, outside the workspace, or in a line that also
 * makes links (it could point the path elsewhere first); `recovered` collects those paths.
 */
export function riskFlagsOf(
  views: readonly CommandView[],
  input: CommandPolicyInput,
  folders: readonly (readonly Folder[])[],
  recovered: string[][] = []
): { flag: string; why: string }[] {
  const found = new Map<string, string>()
  const raise = (flag: string, why: string) => {
    if (!found.has(flag)) found.set(flag, why)
  }
  // A deletion is vouched for only on a line of deleters and harmless programs, with at most one git discard and nothing else deleting beside it.
  const gitDiscarding = views.filter((view) => gitDiscards(view) !== undefined)
  const plainLine =
    views.every((view) => recoverableDeleters.has(view.program) || harmlessBeside.has(view.program) || gitDiscards(view) !== undefined) &&
    (gitDiscarding.length === 0 || (gitDiscarding.length === 1 && views.every((view) => !recoverableDeleters.has(view.program))))
  const canRecover = (paths: readonly { prefix: string[]; glob: boolean }[]) => {
    if (!input.recoverable || !plainLine || !paths.every((path) => input.recoverable!(path.prefix, { glob: path.glob }))) return false
    recovered.push(...paths.map((path) => path.prefix))
    return true
  }
  const links = scratchLinks(views, folders)
  views.forEach((view, i) => {
    const here = folders[i] ?? [null]
    if (input.network !== 'none' && usesNetwork(view, input.localBin)) raise('network', `${shown(view)} reaches the network`)
    if (installsPackages(view, input.localBin)) raise('package_install', `${shown(view)} installs packages`)
    const deleted = deletionTargets(view)
    const linked = (target: string) =>
      links.length > 0 && resolveAll(target, here).some((p) => p.anchor === 'workspace' && links.some((link) => under(p.segments, link)))
    const outsideScratch = (deleted ?? []).filter((target) => target === unknownTarget || !insideScratch(target, here) || linked(target))
    // A folder only known at run time (`cd "$X"`) is no place the checkpoint can vouch for; nor a word that climbs (`lnk/../x`).
    const knownFolders = here.every((folder) => folder !== null && folder.anchor === 'workspace')
    const inWorkspace = (target: string) =>
      target === unknownTarget || linked(target) || target.split('/').includes('..') ? undefined : resolveAll(target, here)
    const readings = outsideScratch.map(inWorkspace)
    const paths = readings.flatMap((found) => (found ?? []).map((p) => (p.anchor === 'workspace' ? beforeGlob(p.segments) : undefined)))
    const recoverable =
      recoverableDeleters.has(view.program) &&
      knownFolders &&
      readings.every((found) => found !== undefined && found.length > 0) &&
      paths.every((path) => path !== undefined) &&
      canRecover(paths as { prefix: string[]; glob: boolean }[])
    const discards = gitDiscards(view)
    if (discards)
      raise(
        gitRecoverable(view, here) && canRecover(here.map((folder) => ({ prefix: [...(folder?.segments ?? [])], glob: true })))
          ? 'recoverable_deletion'
          : 'deletion',
        discards
      )
    const outside = outsideScratch[0]
    if (outside !== undefined) {
      const why = outside === unknownTarget ? `${shown(view)} deletes paths only known at run time` : `${shown(view)} deletes ${outside}, outside scratch/`
      raise(recoverable ? 'recoverable_deletion' : 'deletion', recoverable ? `${why}; the checkpoint keeps it, so it can be undone` : why)
    }
    const move = moveSources(view)
    if (move.destination !== undefined && resolveAll(move.destination, here).some((p) => p.anchor !== 'workspace')) {
      const away = move.sources.find((source) => !insideScratch(source, here))
      if (away !== undefined) raise('deletion', `${shown(view)} moves ${away} out of the workspace`)
    }
    const written = writeTargets(view)
    if (written.includes(unknownTarget)) raise('vcs_write', `${shown(view)} writes the files its input names (.git/ included)`)
    for (const target of [...written, ...(deleted ?? [])]) {
      const kind = protectedKind(target, here)
      if (kind) raise(kind, `${shown(view)} writes ${target}`)
    }
    const config = configCommand(view)
    if (config) raise('config_write', config)
  })
  if (input.timeoutSeconds !== undefined && input.timeoutSeconds > longRuntimeSeconds)
    raise('long_runtime', `timeout of ${input.timeoutSeconds} s is above ${longRuntimeSeconds} s`)
  return riskFlagOrder.filter((flag) => found.has(flag)).map((flag) => ({ flag, why: found.get(flag)! }))
}

/**
 * Whether a git command that discards work stays in the workspace folder it runs in: not a push,
 * no `-C`/`--work-tree`/`--git-dir`, no `GIT_*` variables on the line, run in a folder known at
 * analysis time. (Its folder's whole tree must then be kept, links included: see `canRecover`.)
 */
function gitRecoverable(view: CommandView, here: readonly Folder[]): boolean {
  const git = gitSubcommand(view)
  if (!git || git.name === 'push') return false
  if (!here.every((folder) => folder !== null && folder.anchor === 'workspace')) return false
  if (view.command.assignments.some((a) => a.name.startsWith('GIT_'))) return false
  const before = view.args.slice(0, Math.max(0, view.args.length - git.args.length - 1))
  return !before.some((arg) => gitElsewhere.test(arg)) && !git.args.some((arg) => /^--(?:work-tree|git-dir)(?:=|$)/.test(arg))
}
