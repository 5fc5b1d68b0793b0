import { realpathSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { isInside } from '../../core/sandbox/workspace-paths'
import { CommandRefusedError } from './command-line'

/**
 * Where the host runner looks for programs, in order: the distribution's directories first, then
 * the administrator's. Never the caller's PATH, never a workspace.
 */
export const hostProgramDirectories: readonly string[] = ['/usr/bin', '/bin', '/usr/local/bin', '/opt/homebrew/bin']

/** The PATH given to the programs the runner starts (for the helpers they run themselves). */
export const hostProgramPath = hostProgramDirectories.join(':')

/**
 * The absolute path of program `name` in the fixed directories. Refused: a name with a slash, a
 * program that resolves into a workspace root, or one that users other than its owner may rewrite.
 */
export function resolveHostProgram(name: string, roots: readonly string[]): string {
  if (name === '' || name.includes('/') || name === '.' || name === '..') {
    throw new CommandRefusedError(`${name}: the host runner runs programs by name from ${hostProgramPath} only`)
  }
  for (const directory of hostProgramDirectories) {
    const candidate = join(directory, name)
    let stats
    try {
      stats = statSync(candidate)
    } catch {
      continue
    }
    if (!stats.isFile() || (stats.mode & 0o111) === 0) continue
    let real: string
    try {
      real = realpathSync.native(candidate)
    } catch {
      continue
    }
    if (roots.some((root) => isInside(root, real))) throw new CommandRefusedError(`${name} resolves to ${real}, inside the workspace`)
    if ((stats.mode & 0o022) !== 0) throw new CommandRefusedError(`${real} is writable by other users; the host runner will not run it`)
    // The name in the fixed directory, not the link target: multi-call binaries (busybox) read argv[0].
    return candidate
  }
  throw new CommandRefusedError(`${name} is not installed in ${hostProgramPath}`)
}
