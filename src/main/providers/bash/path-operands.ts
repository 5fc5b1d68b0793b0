import { lstatSync, realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, join } from 'node:path'
import { isInside } from '../../core/sandbox/workspace-paths'
import { CommandRefusedError } from './command-line'

/**
 * Refuses a path argument (an operand, wherever it sits, or an option's value) unless it resolves,
 * symbolic links followed, inside one of the roots. A path that does not exist yet is judged by
 * its nearest existing ancestor (the rest cannot be followed: the program would find it missing);
 * a dangling link is refused, since where it leads is not known.
 * `-` (standard input, which is empty here) is accepted.
 */
export function checkPathArgument(path: string, cwd: string, roots: readonly string[], shown = path): void {
  if (path === '-') return
  if (path.startsWith('~')) throw new CommandRefusedError(`${shown}: home-relative paths are outside the workspace`)
  // Not path.resolve: it folds `link/..` by spelling, whereas the kernel follows `link` first.
  const real = realPathOrAncestor(isAbsolute(path) ? path : `${cwd}/${path}`, shown)
  if (!roots.some((root) => isInside(root, real))) throw new CommandRefusedError(`${shown} is outside the workspace`)
}

/** The real path of `path`, or of its nearest existing ancestor joined with the missing rest. */
function realPathOrAncestor(path: string, shown: string): string {
  let current = path
  const rest: string[] = []
  while (!exists(current)) {
    const parent = dirname(current)
    if (parent === current) break
    rest.unshift(basename(current))
    current = parent
  }
  try {
    return join(realpathSync.native(current), ...rest)
  } catch {
    throw new CommandRefusedError(`${shown} goes through a symbolic link that points nowhere; the host runner cannot tell where it leads`)
  }
}

/** True when something (even a dangling link) is at `path`. */
function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}
