import { resolveAll } from './command-rules-folders'
import { hasFlag, isLong, segmentMatches, shown, splitArgs, type CommandView, type Family, type Folder, type ResolvedPath } from './command-rules-words'

/**
 * The credential family (`deny.credential_read`): a command that names a credential store or a
 * shell-history file outside the workspace — `~/.ssh`, `~/.aws`, `~/.gnupg`, `~/.kube`,
 * `~/.docker/config.json`, `~/.netrc`, `~/.git-credentials`, `~/.config/git/credentials`, gcloud's
 * and gh's folders, history files, `/etc/shadow` — however the path is spelled: `~`, `$HOME`,
 * `${HOME:-x}`, `/root`, `/home/*`, globs in any segment (`/h*`, `/r??t`, `.s?h`), `/proc/self/root/…`,
 * relative to a folder an earlier `cd` or `tar -C` moved to. A command that reads a whole home
 * folder (or `/`, `/home`) recursively — `cp -r ~ x`, `tar -C ~ -c .`, `rsync -a ~/ x`, `grep -r k ~`
 * — copies the keys with it and counts as reading them.
 */

/** Credential stores and history files, as segments under a home folder. */
const homeSecrets: string[][] = [
  ...['.ssh', '.aws', '.gnupg', '.kube', '.netrc', '.git-credentials', '.pgpass', '.azure', '.password-store', '.vault-token'].map((name) => [name]),
  ...[
    '.bash_history',
    '.zsh_history',
    '.sh_history',
    '.history',
    '.python_history',
    '.node_repl_history',
    '.psql_history',
    '.mysql_history',
    '.lesshst',
    '.viminfo'
  ].map((name) => [name]),
  ['.docker', 'config.json'],
  ['.config', 'gcloud'],
  ['.config', 'gh'],
  ['.config', 'hub'],
  ['.config', 'git', 'credentials'],
  ['.local', 'share', 'keyrings']
]

/** The segments of `path` below each home folder it may be in (`~/x`, `/root/x`, `/home/u/x`). */
function homeRests(path: ResolvedPath): string[][] {
  if (path.anchor === 'home') return [path.segments]
  if (path.anchor !== 'root') return []
  const [first, second] = path.segments
  const rests: string[][] = []
  if (first !== undefined && segmentMatches(first, 'root')) rests.push(path.segments.slice(1))
  if (first !== undefined && second !== undefined && segmentMatches(first, 'home')) rests.push(path.segments.slice(2))
  return rests
}

const within = (rest: readonly string[], secret: readonly string[]) => rest.length >= secret.length && secret.every((name, i) => segmentMatches(rest[i]!, name))

/** The credential store a resolved path is in, if any. */
export function credentialOf(path: ResolvedPath): string | undefined {
  if (path.anchor === 'root' && path.segments.length === 2 && segmentMatches(path.segments[0]!, 'etc')) {
    const name = ['shadow', 'gshadow', 'sudoers'].find((file) => segmentMatches(path.segments[1]!, file))
    if (name) return `/etc/${name}`
  }
  for (const rest of homeRests(path)) {
    const secret = homeSecrets.find((s) => within(rest, s))
    if (secret) return `~/${secret.join('/')}`
  }
  return undefined
}

/** True when a resolved path holds a credential store somewhere below it (`/`, `/home`, `~`, `~/.config`). */
function holdsCredentials(path: ResolvedPath): boolean {
  if (path.anchor === 'root' && (path.segments.length === 0 || (path.segments.length === 1 && segmentMatches(path.segments[0]!, 'home')))) return true
  return homeRests(path).some((rest) => homeSecrets.some((secret) => rest.length < secret.length && rest.every((name, i) => segmentMatches(name, secret[i]!))))
}

/** What credential store a path word names from `folders`, if any. */
export function credentialPath(value: string, folders: readonly Folder[] = []): string | undefined {
  for (const path of resolveAll(value, folders)) {
    const found = credentialOf(path)
    if (found) return found
  }
  return undefined
}

/** The operands a command reads recursively (the sources of `cp -r`, `rsync -a`, `zip -r`, `grep -r`). */
function recursiveSources(view: CommandView): string[] {
  const { program, args } = view
  const { options, operands } = splitArgs(args, new Set(['-t', '-e', '-f', '--target-directory']))
  const recursive = hasFlag(options, 'r', '--recursive') || hasFlag(options, 'R', '--dereference-recursive')
  const toTarget = options.some((o) => o === '-t' || isLong(o, '--target-directory'))
  if (['cp', 'scp', 'rsync'].includes(program) && (recursive || hasFlag(options, 'a', '--archive'))) return toTarget ? operands : operands.slice(0, -1)
  if (program === 'zip' && (recursive || isLong(options.find((o) => o.startsWith('--recurse')) ?? '', '--recurse-paths'))) return operands.slice(1)
  if (['grep', 'egrep', 'fgrep'].includes(program) && recursive) return operands
  return []
}

/** `tar`'s operands, each with the folders `-C DIR` / `--directory=DIR` put in front of it. */
function tarOperands(view: CommandView, folders: readonly Folder[]): { value: string; folders: Folder[] }[] {
  let here: Folder[] = [...folders]
  const out: { value: string; folders: Folder[] }[] = []
  const args = view.args
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    let dir: string | undefined
    if (arg === '-C' || (isLong(arg, '--directory') && !arg.includes('='))) dir = args[++i]
    else if (isLong(arg, '--directory')) dir = arg.slice(arg.indexOf('=') + 1)
    else if (/^-C./.test(arg)) dir = arg.slice(2)
    else if (/^-[a-zA-Z]*[fbCKgLNTVX]$/.test(arg)) i++
    else if (!arg.startsWith('-') && i > 0) out.push({ value: arg, folders: here })
    if (dir !== undefined) here = resolveAll(dir, here).flatMap((p) => (p.anchor === 'unknown' ? [null] : [{ anchor: p.anchor, segments: p.segments }]))
  }
  return out
}

export const credentialRead: Family = (view, _all, folders) => {
  const words = [...view.command.argv.map((w) => w.value), ...view.command.redirects.map((r) => r.target.value)]
  for (const word of words) {
    const equals = word.indexOf('=')
    const found = credentialPath(word, folders) ?? (equals > 0 ? credentialPath(word.slice(equals + 1), folders) : undefined)
    if (found) return `${shown(view)}: touches ${found}, a credential or shell-history file outside the workspace`
  }
  const tar = view.program === 'tar' || view.program === 'bsdtar' ? tarOperands(view, folders) : []
  for (const operand of tar) {
    const found = credentialPath(operand.value, operand.folders)
    if (found) return `${shown(view)}: archives ${found}, a credential store outside the workspace`
  }
  const sources = [...recursiveSources(view).map((value) => ({ value, folders })), ...tar]
  for (const source of sources) {
    if (resolveAll(source.value, source.folders).some(holdsCredentials)) return `${shown(view)}: reads ${source.value} recursively, credential stores included`
  }
  return undefined
}
