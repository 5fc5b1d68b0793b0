import { ProviderError } from '../provider-error'
import { realpathSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'

/** A path outside the roots a resource is bound to, or a root that is not usable. */
export class WorkspaceBoundaryError extends ProviderError {
  constructor(message: string) {
    super('workspace_boundary', message)
  }
}

/** True when `path` (already real) is `root` or inside it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`))
}

/** The real paths of the workspace roots; a missing or empty list is refused. */
export function realRoots(roots: readonly string[] | undefined): string[] {
  if (!roots || roots.length === 0) throw new WorkspaceBoundaryError('No workspace root was given: this resource only runs inside a workspace.')
  return roots.map((root) => {
    try {
      return realpathSync(root)
    } catch {
      throw new WorkspaceBoundaryError(`The workspace root ${root} does not exist.`)
    }
  })
}

/**
 * Resolves a working directory inside the first root: relative paths are taken from that root,
 * symlinks are followed, and anything that lands outside every root is refused. There is no
 * fallback to the process's own cwd.
 */
export function resolveCwd(roots: readonly string[], cwd: string | undefined): string {
  const first = roots[0]!
  const wanted = cwd === undefined || cwd === '' ? first : resolve(first, cwd)
  let real: string
  try {
    real = realpathSync(wanted)
  } catch {
    throw new WorkspaceBoundaryError(`The working directory ${cwd} does not exist in the workspace.`)
  }
  if (!roots.some((root) => isInside(root, real))) {
    throw new WorkspaceBoundaryError(`The working directory ${cwd} is outside the workspace.`)
  }
  return real
}
