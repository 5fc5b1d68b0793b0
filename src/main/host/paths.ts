import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/** Every path Airlock uses, derived from one home directory (SPEC §2). */
export type AirlockPaths = {
  home: string
  database: string
  workspaces: string
  logs: string
  images: string
}

/** Picks the home: an explicit value, else `AIRLOCK_HOME`, else `~/.airlock`. */
export function resolveHome(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = explicit ?? env.AIRLOCK_HOME
  return resolve(chosen && chosen.length > 0 ? chosen : join(homedir(), '.airlock'))
}

/** The paths under a home. */
export function airlockPaths(home: string): AirlockPaths {
  return {
    home,
    database: join(home, 'airlock.db'),
    workspaces: join(home, 'workspaces'),
    logs: join(home, 'logs'),
    images: join(home, 'images')
  }
}

/** A home directory that cannot be created or used. */
export class HomeUnavailableError extends Error {
  override readonly name = 'HomeUnavailableError'
  readonly code = 'home_unavailable'
}

/** Creates the home itself (owner-only); subfolders are created once the database opened. */
export function createHomeDirectory(home: string): void {
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 })
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error)
    throw new HomeUnavailableError(
      `Cannot create the Airlock home ${home} (${reason}). Choose a writable directory with --home or AIRLOCK_HOME.`,
      { cause: error }
    )
  }
}

/** Creates the data folders under an opened home. */
export function createDataDirectories(paths: AirlockPaths): void {
  for (const dir of [paths.workspaces, paths.logs, paths.images]) mkdirSync(dir, { recursive: true, mode: 0o700 })
}
