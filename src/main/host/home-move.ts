import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync, rmdirSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { addressIsLive, readGatewayAddress } from '../console/gateway-address'
import { homeSafetyProblem } from './home-safety'
import { airlockPaths, HomeUnavailableError } from './paths'

/**
 * Moves an Airlock home — database, workspaces, images, logs, keys — to another folder, so
 * agents, their tokens and history stay as they are (`airlock home move`). The typical use: a
 * root install whose home was under /root, which sandboxes cannot enter.
 *
 * Refused, with why: a home with no database; a home a running console or `airlock serve` uses
 * (its gateway address names a live process); a destination that is a symbolic link, that exists
 * and is not an empty folder, that lies inside the home (or the home inside it), or that another
 * user could replace (`homeSafetyProblem`). The move is a
 * rename when both are on one filesystem; otherwise `cp -a` (owners, modes and links kept as they
 * are, never followed) into the destination, then the old home is removed. `cp` is `/bin/cp`, not
 * whatever `PATH` names. Returns the destination's real path.
 */
export function moveHome(from: string, to: string): string {
  const source = resolve(from)
  const target = resolve(to)
  if (!existsSync(airlockPaths(source).database)) throw new HomeUnavailableError(`There is no Airlock home at ${source} (no airlock.db): nothing to move.`)
  const running = readGatewayAddress(source)
  if (running && addressIsLive(running)) {
    throw new HomeUnavailableError(
      `Airlock is running on ${source} (process ${running.pid}): stop it (the desktop app or airlock serve) before moving its home.`
    )
  }
  const inside = (a: string, b: string) => a === b || (!relative(b, a).startsWith('..') && !relative(b, a).startsWith(sep))
  if (inside(target, source) || inside(source, target)) throw new HomeUnavailableError(`Cannot move ${source} to ${target}: one lies inside the other.`)
  const existing = lstatOrUndefined(target)
  if (existing?.isSymbolicLink()) throw new HomeUnavailableError(`Refused ${target}: it is a symbolic link; name the folder itself.`)
  if (existing && (!existing.isDirectory() || readdirSync(target).length > 0))
    throw new HomeUnavailableError(`Refused ${target}: it exists and is not an empty folder.`)
  const unsafe = homeSafetyProblem(target)
  if (unsafe) throw new HomeUnavailableError(`Refused ${target}: ${unsafe}`)
  mkdirSync(dirname(target), { recursive: true })
  try {
    if (existing) rmdirSync(target)
    renameSync(source, target)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV')
      throw new HomeUnavailableError(`Cannot move ${source} to ${target}: ${(error as Error).message}`, { cause: error })
    copyAcross(source, target)
  }
  // Searchable, not listable, like a new home (sandboxes must reach their workspaces through it).
  chmodSync(target, 0o711)
  return realpathSync(target)
}

/** Another filesystem: copy everything as it is, then remove the old home. */
function copyAcross(source: string, target: string): void {
  mkdirSync(target, { mode: 0o711 })
  const copied = spawnSync('/bin/cp', ['-a', '--', join(source, '.'), target], { encoding: 'utf8' })
  if (copied.status !== 0) {
    rmSync(target, { recursive: true, force: true })
    throw new HomeUnavailableError(
      `Cannot copy ${source} to ${target}: ${(copied.stderr || copied.error?.message || 'cp failed').trim()}; ${source} is unchanged.`
    )
  }
  rmSync(source, { recursive: true, force: true })
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}
