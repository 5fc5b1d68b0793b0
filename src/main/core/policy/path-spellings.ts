import { realpathSync } from 'node:fs'
import { dirname, join, posix, relative, sep } from 'node:path'

/**
 * The workspace-relative spellings a path can have, so that labels and protected names are
 * matched on what a path reaches, not on how it was written: the path as given (with the
 * workspace's own names for itself removed: its absolute path, `$PWD`, `~+`, `/proc/self/cwd`,
 * and joined to the call's `cwd`), and its real path when it, or its nearest existing parent,
 * resolves inside the workspace (a symlink `notes -> secrets` makes `notes/x` also `secrets/x`).
 *
 * The real path is looked up at decision time with `realpath` (no file is opened or read). A link
 * the sandbox changes between this check and the call can still differ: file tools resolve again
 * on descriptors when they run; this only decides what asks.
 */
export function pathSpellings(path: string, workspace: string, cwd = ''): string[] {
  const written = stripWorkspaceNames(path, workspace)
  if (written === undefined) return []
  const joined = posix.normalize(posix.join(cwd, written)).replace(/^\.\/?/, '')
  const spellings = new Set([written, joined])
  if (!joined.startsWith('..')) {
    const real = realWithin(workspace, joined)
    if (real !== undefined) spellings.add(real)
  }
  return [...spellings]
}

const workspaceNames = [/^\$\{?PWD\}?(?=\/|$)/, /^~\+(?=\/|$)/, /^\/proc\/(?:self|thread-self)\/cwd(?=\/|$)/]

/** The path relative to the workspace, or undefined when it is an absolute path elsewhere. */
function stripWorkspaceNames(path: string, workspace: string): string | undefined {
  let out = path
  for (const name of workspaceNames) out = out.replace(name, '.')
  if (out === workspace || out.startsWith(`${workspace}/`)) out = `.${out.slice(workspace.length)}`
  if (out.startsWith('/')) return undefined
  return out
}

/** The real path of `relativePath` (or of its nearest existing parent, plus the rest) inside the workspace. */
function realWithin(workspace: string, relativePath: string): string | undefined {
  let existing = join(workspace, relativePath)
  let rest = ''
  for (let steps = 0; steps < 64; steps++) {
    try {
      const real = join(realpathSync(existing), rest)
      const inside = relative(workspace, real)
      if (inside.startsWith('..') || inside.startsWith(sep)) return undefined
      return inside.split(sep).join('/')
    } catch {
      if (existing === workspace) return undefined
      rest = join(existing.slice(dirname(existing).length + 1), rest)
      existing = dirname(existing)
    }
  }
  return undefined
}
