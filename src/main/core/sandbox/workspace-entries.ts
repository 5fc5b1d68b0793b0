import { randomBytes } from 'node:crypto'
import { closeSync, constants, lstatSync, openSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { protectedPathsWith } from '@shared/protected-paths'
import { descriptorPath, makeDirectoryExclusive, openBeneath, openHostDirectory } from '..'

/** An entry of a workspace bound whole: its host path (the same inside the sandbox), a folder or a file, and which one it is. */
export type WorkspaceEntry = { path: string; directory: boolean; dev: number; ino: number }

/** A hidden entry: labelled above what a run may read, covered with an empty read-only folder or file; `pinned` as for a protected entry (so the label cannot be renamed off it). */
export type HiddenEntry = WorkspaceEntry & { pinned: WorkspaceEntry[] }

/** A protected entry: mounted read-only over itself; `pinned` are the folders above it inside the workspace, bound over themselves so none can be renamed away. */
export type ProtectedEntry = WorkspaceEntry & { pinned: WorkspaceEntry[] }

/**
 * The workspace's own `.git` when it is a file (a linked worktree's or a submodule's `gitdir: …`
 * pointer): protected read-only like the paths inside a `.git` folder, since it says where git
 * reads config and hooks from. A `.git` folder itself is not (git writes it all the time).
 */
export const gitPointer = '.git'

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

/** An entry with the folders above it inside the workspace, when the whole chain is there. */
function pinnedEntry(workspace: string, relative: string): ProtectedEntry | undefined {
  const chain = entryChain(workspace, relative)
  return chain ? { ...chain[chain.length - 1]!, pinned: chain.slice(0, -1) } : undefined
}

/** The policy's `hiddenPaths` (labelled entries, workspace-relative) as they exist now under a workspace bound whole. */
export function hiddenEntries(workspace: string, paths: readonly string[] | undefined): HiddenEntry[] {
  return (paths ?? []).flatMap((relative) => pinnedEntry(workspace, relative) ?? [])
}

/** The protected paths (the defaults and the policy's, and a `.git` pointer file) that exist now under a workspace bound whole. */
export function protectedEntries(workspace: string, paths: readonly string[] | undefined): ProtectedEntry[] {
  const entries = protectedPathsWith(paths ?? []).flatMap((relative) => pinnedEntry(workspace, relative) ?? [])
  const pointer = pinnedEntry(workspace, gitPointer)
  return pointer && !pointer.directory ? [...entries, pointer] : entries
}

/** What exists now of some entries, as a key: a launcher or container made for another key protects or hides another set. */
export function entriesKey(entries: readonly WorkspaceEntry[]): string {
  return entries.map((entry) => `${entry.path}:${entry.directory ? 'd' : 'f'}:${entry.dev}:${entry.ino}`).join('\n')
}

/** What a run starts with at each protected path: the state of each component, from the workspace down. */
export type ProtectedWatch = { fd: number; path: string; watched: { relative: string; before: string[] }[] }

/**
 * The state of each component of `relative` under `workspace`, outermost first, without following
 * a link: `d|f|l|o:<dev>:<ino>` (folder, file, link, other) or `-` (absent); after the first one
 * that is not a folder, the rest are `-`.
 */
function componentStates(workspace: string, relative: string): string[] {
  const states: string[] = []
  let path = workspace
  let reachable = true
  for (const segment of relative.split('/')) {
    path = join(path, segment)
    if (!reachable) {
      states.push('-')
      continue
    }
    try {
      const stat = lstatSync(path)
      const kind = stat.isDirectory() ? 'd' : stat.isFile() ? 'f' : stat.isSymbolicLink() ? 'l' : 'o'
      states.push(`${kind}:${stat.dev}:${stat.ino}`)
      reachable = kind === 'd'
    } catch {
      states.push('-')
      reachable = false
    }
  }
  return states
}

/** When a run starts: the state of every protected path (and of `.git`) in each workspace it binds whole. */
export function watchProtected(workspaces: readonly { fd: number; path: string }[], paths: readonly string[] | undefined): ProtectedWatch[] {
  const watched = [...protectedPathsWith(paths ?? []), gitPointer]
  return workspaces.map((workspace) => ({
    ...workspace,
    watched: watched.map((relative) => ({ relative, before: componentStates(workspace.path, relative) }))
  }))
}

/**
 * Once a run is over (its processes gone): walks each protected path again from the workspace,
 * without following a link, and moves into `.airlock/quarantine/<time>/` the outermost component
 * that the run made or replaced — a `.git/commondir` pointing git at its own config and hooks, a
 * `.claude/` with settings, a `tools` folder swapped for a link that puts its own script at a
 * protected `tools/release.sh`, a `.git` written as a `gitdir:` pointer. Nothing the sandbox
 * wrote stays on a path the operator's git, editor or agent client runs; protected paths change
 * only through the file tools, which ask with the diff. What was already there (an operator's own
 * link) is left alone. Decision: a `.git` folder the run made where there was none (`git init`,
 * `git clone … .`) keeps its config and hooks, as the rest of a project the agent wrote (README:
 * as root, the operator's git refuses it as of dubious ownership); once there, `.git` is pinned in
 * every run and cannot be made new again. Returns the notes for the run's stderr.
 */
export function quarantineChanged(watches: readonly ProtectedWatch[]): string[] {
  const moved: string[] = []
  const failed: string[] = []
  for (const workspace of watches) {
    let quarantine: number | undefined
    try {
      for (const { relative, before } of workspace.watched) {
        const after = componentStates(workspace.path, relative)
        const segments = relative.split('/')
        const index = after.findIndex((state, i) => state !== before[i] || !state.startsWith('d:'))
        if (index < 0 || after[index] === before[index] || after[index] === '-') continue
        const newRepository = segments[0] === '.git' && index === 0 && before[0] === '-' && after[0]!.startsWith('d:')
        if (newRepository) continue
        const outer = segments.slice(0, index + 1).join('/')
        if (moved.includes(outer)) continue
        try {
          quarantine ??= openQuarantine(workspace.fd)
          moveInto(workspace.fd, outer, quarantine)
          moved.push(outer)
        } catch (error) {
          failed.push(`${outer} (${(error as Error).message})`)
        }
      }
    } finally {
      if (quarantine !== undefined) closeSync(quarantine)
    }
  }
  return quarantineNotes(moved, failed)
}

/** Moves `relative` (its folders above reached from the workspace's descriptor, never through a link) into the quarantine folder. */
function moveInto(workspaceFd: number, relative: string, quarantine: number): void {
  const segments = relative.split('/')
  const name = segments.pop()!
  const parent = segments.length
    ? openBeneath(workspaceFd, segments.join('/'))
    : openSync(descriptorPath(workspaceFd), constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    renameSync(`${descriptorPath(parent)}/${name}`, `${descriptorPath(quarantine)}/${encodeURIComponent(relative)}`)
  } finally {
    closeSync(parent)
  }
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

/** What a run is told about what was moved (its stderr's `airlock:` lines). */
function quarantineNotes(moved: readonly string[], failed: readonly string[]): string[] {
  return [
    ...(moved.length
      ? [
          `moved ${moved.join(', ')} to .airlock/quarantine/: this run made or replaced ${moved.length === 1 ? 'a protected path' : 'protected paths'} (git config and hooks, editor and agent settings, CI files, shell start-up files run code outside the sandbox); change them with write_file or edit_file, which the operator sees`
        ]
      : []),
    ...(failed.length
      ? [`could not move ${failed.join(', ')} out of the way: look at ${failed.length === 1 ? 'it' : 'them'} before running git or opening the folder`]
      : [])
  ]
}
