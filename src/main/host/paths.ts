import { AirlockError } from '@shared/errors'
import { chmodSync, existsSync, lstatSync, mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { homeSafetyProblem } from './home-safety'

/** Every path Airlock uses, derived from one home directory (SPEC §2). */
export type AirlockPaths = {
  home: string
  database: string
  workspaces: string
  logs: string
  images: string
  /** Records of process groups runs started on the host, ended at the next start after a crash. */
  runs: string
  /** Workspace checkpoints' content store (0700: no sandbox mounts or enters it). */
  checkpoints: string
}

/** Where Airlock keeps its data when it runs as root and no home is given (like other system services). */
export const systemHome = '/var/lib/airlock'

/**
 * Picks the home: an explicit value, else `AIRLOCK_HOME`, else `~/.airlock` — but as root,
 * `/var/lib/airlock`: root's home (`/root`, mode 0700) is one the sandbox uid cannot enter, so
 * a workspace under it could never run a command. A root home that already holds a database
 * (`~/.airlock/airlock.db`, from before this default) is kept; the start-up check reports it,
 * and `airlock home move` moves it.
 */
export function resolveHome(explicit?: string, env: NodeJS.ProcessEnv = process.env, isRoot = process.getuid?.() === 0): string {
  const chosen = explicit ?? env.AIRLOCK_HOME
  if (chosen && chosen.length > 0) return resolve(chosen)
  const personal = join(homedir(), '.airlock')
  return isRoot && !existsSync(join(personal, 'airlock.db')) ? systemHome : personal
}

/** The paths under a home. */
export function airlockPaths(home: string): AirlockPaths {
  return {
    home,
    database: join(home, 'airlock.db'),
    workspaces: join(home, 'workspaces'),
    logs: join(home, 'logs'),
    images: join(home, 'images'),
    runs: join(home, 'runs'),
    checkpoints: join(home, 'checkpoints')
  }
}

/** A home directory that cannot be created or used. */
export class HomeUnavailableError extends AirlockError<'host.home_unavailable'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('host.home_unavailable', message, {}, options)
  }
}

/**
 * Home and workspaces are searchable (0711, not listable) by other uids: sandboxes run as their own
 * unprivileged uid when Airlock is root and must reach their workspace; everything else is owner-only.
 */
const searchableMode = 0o711

/**
 * Creates the home itself (owner-only but searchable); subfolders are created once the database
 * opened. A home that already exists as this user's own folder but is not searchable by others
 * (`mkdir` under a 0077 umask, `mktemp -d`) is made searchable (0711: never listable) when
 * sandboxes run as their own uid — the home only, never a folder above it, which stays the
 * operator's to fix (`airlock home move`). A home another user could replace, one not this user's,
 * or one on a read-only filesystem is refused with why (`homeSafetyProblem`), nothing made or changed.
 */
export function createHomeDirectory(home: string): void {
  const refuse = (problem: string | undefined) => {
    if (problem) throw new HomeUnavailableError(`Refused the Airlock home: ${problem}`)
  }
  try {
    // Checked before anything is made (a folder on the way another user controls) and after (the home itself).
    refuse(homeSafetyProblem(home))
    mkdirSync(home, { recursive: true, mode: searchableMode })
    const stat = lstatSync(home)
    if (process.getuid?.() === 0 && stat.isDirectory() && stat.uid === 0 && (stat.mode & 0o001) === 0) chmodSync(home, (stat.mode & 0o700) | 0o011)
    refuse(homeSafetyProblem(home))
  } catch (error) {
    if (error instanceof HomeUnavailableError) throw error
    const reason = (error as NodeJS.ErrnoException).code ?? String(error)
    throw new HomeUnavailableError(`Cannot create the Airlock home ${home} (${reason}). Choose a writable directory with --home or AIRLOCK_HOME.`, {
      cause: error
    })
  }
}

/** Creates the data folders under an opened home. */
export function createDataDirectories(paths: AirlockPaths): void {
  mkdirSync(paths.workspaces, { recursive: true, mode: searchableMode })
  for (const dir of [paths.logs, paths.images, paths.runs, paths.checkpoints]) mkdirSync(dir, { recursive: true, mode: 0o700 })
}
