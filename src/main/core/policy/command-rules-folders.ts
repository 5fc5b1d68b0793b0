import { baseName, firstOperand, isLong, resolvePath, workspaceRoot, type CommandView, type Folder, type ResolvedPath } from './command-rules-words'

/**
 * The working folders each command of a line may run in, for every rule that reads a relative
 * path: the call's `cwd`, every folder an earlier `cd`/`pushd` moved to (a bare `cd` is the home
 * folder, `cd -` unknown), and a wrapper's own change of folder (`env -C /`, `--chdir=`). A `cd`
 * may fail, so the folders before it stay possible too: a deny family hits when a path is
 * dangerous from any of them, and a path counts as inside `scratch/` only from all of them.
 * The set is capped (`maxFolders`): past it the deepest workspace folders give way to "unknown",
 * and `/`, `~` and the first-level folders are kept, since those are where the deny families look.
 */

/** The most distinct working folders tracked for one command. */
export const maxFolders = 32

const keyOf = (folder: Folder) => (folder === null ? '?' : `${folder.anchor}:${folder.segments.join('/')}`)

function merged(folders: readonly Folder[]): Folder[] {
  const seen = new Map<string, Folder>()
  for (const folder of folders) seen.set(keyOf(folder), folder)
  const all = [...seen.values()]
  if (all.length <= maxFolders) return all
  const rank = (f: Folder) => (f === null ? 0 : (f.anchor === 'workspace' ? 100 : 0) + f.segments.length)
  return [
    ...all
      .sort((a, b) => rank(a) - rank(b))
      .slice(0, maxFolders - 1)
      .filter((f) => f !== null),
    null
  ]
}

/** Where `cd TARGET` from `folder` lands (`undefined` target: the home folder). */
function moved(target: string | undefined, folder: Folder): Folder {
  if (target === undefined) return { anchor: 'home', segments: [] }
  if (target === '-') return null
  const path = resolvePath(target, folder)
  return path.anchor === 'unknown' ? null : { anchor: path.anchor, segments: path.segments }
}

const chdirOptions = ['--chdir', '--wd', '--working-directory']

/** The folder a wrapper switches to before it runs the command (`env -C DIR`, `--chdir=DIR`). */
function wrapperFolder(argv: readonly string[]): string | undefined {
  const env = baseName(argv[0] ?? '') === 'env'
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    const name = arg.split('=')[0]!
    const long = chdirOptions.find((option) => isLong(arg, option) && (name === option || name.length >= 5))
    if (long) return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[i + 1]
    if (env && /^-[a-zA-Z]*C/.test(arg)) {
      const rest = arg.slice(arg.indexOf('C') + 1)
      return rest !== '' ? rest : argv[i + 1]
    }
  }
  return undefined
}

/** The working folders of every command of a line (see the module comment). */
export function workingFolders(views: readonly CommandView[], cwd: string | undefined): Folder[][] {
  const start = resolvePath(cwd ?? '.', workspaceRoot)
  let current: Folder[] = [start.anchor === 'workspace' ? { anchor: 'workspace', segments: start.segments } : null]
  return views.map((view) => {
    let here = current
    for (const wrapper of view.command.wrappers) {
      const target = wrapperFolder(wrapper.argv)
      if (target !== undefined) here = merged(here.map((folder) => moved(target, folder)))
    }
    if (view.program === 'cd' || view.program === 'pushd' || view.program === 'popd') {
      const operand = firstOperand(view.args)?.value
      const target = view.program === 'popd' || (view.program === 'pushd' && operand === undefined) ? '-' : operand
      current = merged([...current, ...here.map((folder) => moved(target, folder))])
    }
    return here
  })
}

/**
 * Every place a path word may name from `folders`: one reading when it is absolute, home-based or
 * unknown, else one per known folder.
 */
export function resolveAll(value: string, folders: readonly Folder[]): ResolvedPath[] {
  const fixed = resolvePath(value, null)
  if (fixed.anchor !== 'unknown') return [fixed]
  const readings = folders.flatMap((folder) => (folder === null ? [] : [resolvePath(value, folder)])).filter((p) => p.anchor !== 'unknown')
  return readings.length > 0 ? readings : [fixed]
}
