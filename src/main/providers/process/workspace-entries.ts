import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { protectedPathsWith } from '@shared/protected-paths'

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
