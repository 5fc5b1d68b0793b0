import { randomBytes } from 'node:crypto'
import { closeSync, constants, lstatSync, openSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { protectedPathsWith } from '@shared/protected-paths'
import { descriptorPath, makeDirectoryExclusive, openBeneath, openHostDirectory } from '../../core'

/** An entry of a workspace bound whole: its host path (the same inside the sandbox), a folder or a file, and which one it is. */
export type WorkspaceEntry = { path: string; directory: boolean; dev: number; ino: number }

/** A hidden entry: labelled above what a run may read, covered with an empty read-only folder or file. */
export type HiddenEntry = WorkspaceEntry

/** A protected entry: mounted read-only over itself; `pinned` are the folders above it inside the workspace, bound over themselves so none can be renamed away. */
export type ProtectedEntry = WorkspaceEntry & { pinned: WorkspaceEntry[] }

/**
 * The entries from `workspace` down to `relative`, each reached without a link on any component,
 * the last one a folder or a regular file; undefined when something is missing or in the way (a
 * link is never followed: inside the sandbox it resolves to what it names, which has its own path).
 */
export function entryChain(workspace: string, relative: string): WorkspaceEntry[] | undefined {
  const chain: WorkspaceEntry[] = []
  let path = workspace
  for (const segment of relative.split('/')) {
    path = join(path, segment)
    let stat
    try {
      stat = lstatSync(path)
    } catch {
      return undefined
    }
    if (!stat.isDirectory() && !stat.isFile()) return undefined
    chain.push({ path, directory: stat.isDirectory(), dev: stat.dev, ino: stat.ino })
    if (!stat.isDirectory() && chain.length < relative.split('/').length) return undefined
  }
  return chain
}

/** The policy's `hiddenPaths` (labelled entries, workspace-relative) as they exist now under a workspace bound whole. */
export function hiddenEntries(workspace: string, paths: readonly string[] | undefined): HiddenEntry[] {
  return (paths ?? []).flatMap((relative) => entryChain(workspace, relative)?.slice(-1) ?? [])
}

/** The protected paths (the defaults and the policy's) that exist now under a workspace bound whole. */
export function protectedEntries(workspace: string, paths: readonly string[] | undefined): ProtectedEntry[] {
  return protectedPathsWith(paths ?? []).flatMap((relative) => {
    const chain = entryChain(workspace, relative)
    return chain ? [{ ...chain[chain.length - 1]!, pinned: chain.slice(0, -1) }] : []
  })
}

/** What exists now of some entries, as a key: a launcher or container made for another key protects or hides another set. */
export function entriesKey(entries: readonly WorkspaceEntry[]): string {
  return entries.map((entry) => `${entry.path}:${entry.directory ? 'd' : 'f'}:${entry.dev}:${entry.ino}`).join('\n')
}

/**
 * The protected paths (workspace-relative) that do not exist when a run starts: what the run must
 * not be the one to make. Decision: where there is no `.git` yet, the paths inside it are left out
 * — a repository the run makes (`git init`, `git clone … .`) keeps its own config and hooks, as a
 * project's other files are the agent's (README: where Airlock runs as root, the operator's git
 * refuses that repository as of dubious ownership). Once `.git` exists it is pinned in every run,
 * so a run cannot make it new again.
 */
export function absentProtected(workspace: string, paths: readonly string[] | undefined): string[] {
  const exists = (relative: string) => {
    try {
      lstatSync(join(workspace, relative))
      return true
    } catch {
      return false
    }
  }
  const repository = exists('.git')
  return protectedPathsWith(paths ?? []).filter((relative) => !exists(relative) && (repository || !relative.startsWith('.git/')))
}

/**
 * Once a run is over (its processes gone): every protected path that was absent when it started
 * and exists now — a `.git/commondir` pointing git at the agent's own config and hooks, a
 * `.claude/settings.json` with hooks, the `.git/config` of a `git init` — is moved whole into
 * `.airlock/quarantine/<time>/` (host-kept, never in a sandbox), so nothing the sandbox wrote is
 * on a path the operator's git, editor or agent client runs. Protected paths change only through
 * the file tools, which ask with the diff. Every step goes from the workspace's descriptor without
 * following a link (a link the run planted on the way is not followed; a link in the protected
 * place itself is moved like anything else). Returns the paths moved.
 */
export function quarantineAppeared(workspaceFd: number, absent: readonly string[]): string[] {
  const moved: string[] = []
  let quarantine: number | undefined
  try {
    for (const relative of absent) {
      const segments = relative.split('/')
      const name = segments.pop()!
      let parent: number
      try {
        parent = segments.length ? openBeneath(workspaceFd, segments.join('/')) : dup(workspaceFd)
      } catch {
        continue // its folder is not there (or is a link): nothing appeared at this path
      }
      try {
        try {
          lstatSync(`${descriptorPath(parent)}/${name}`)
        } catch {
          continue
        }
        quarantine ??= openQuarantine(workspaceFd)
        renameSync(`${descriptorPath(parent)}/${name}`, `${descriptorPath(quarantine)}/${relative.replaceAll('/', '__')}`)
        moved.push(relative)
      } finally {
        closeSync(parent)
      }
    }
  } finally {
    if (quarantine !== undefined) closeSync(quarantine)
  }
  return moved
}

/** `.airlock/quarantine/<time>-<random>/`, made for one run's moves (host-kept folders, see `openHostDirectory`). */
function openQuarantine(workspaceFd: number): number {
  const airlock = openHostDirectory(workspaceFd, '.airlock')
  try {
    const folder = openHostDirectory(airlock, 'quarantine')
    try {
      return makeDirectoryExclusive(folder, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`, 'host')
    } finally {
      closeSync(folder)
    }
  } finally {
    closeSync(airlock)
  }
}

/** A second descriptor of an open directory (the workspace's own stays with its owner). */
function dup(fd: number): number {
  return openSync(descriptorPath(fd), constants.O_RDONLY | constants.O_DIRECTORY)
}

/** What a run is told about what was moved (its stderr's `airlock:` lines). */
function quarantineNotes(moved: readonly string[]): string[] {
  if (moved.length === 0) return []
  return [
    `moved ${moved.join(', ')} to .airlock/quarantine/: this run made ${moved.length === 1 ? 'a protected path' : 'protected paths'} (git config and hooks, editor and agent settings, CI files, shell start-up files run code outside the sandbox); change them with write_file or edit_file, which the operator sees`
  ]
}

/** The protected paths absent from each workspace (bound whole, held open) when a run starts. */
export type AbsentProtected = { fd: number; paths: string[] }[]

/** `absentProtected` for each workspace of a sandbox, with the descriptor `quarantineAppeared` walks from. */
export function absentProtectedIn(workspaces: readonly { fd: number; path: string }[], paths: readonly string[] | undefined): AbsentProtected {
  return workspaces.map((workspace) => ({ fd: workspace.fd, paths: absentProtected(workspace.path, paths) }))
}

/** Once the run is over: `quarantineAppeared` in each workspace; returns the notes for the run's stderr. */
export function quarantineAppearedIn(absent: AbsentProtected): string[] {
  return quarantineNotes(absent.flatMap((workspace) => quarantineAppeared(workspace.fd, workspace.paths)))
}
