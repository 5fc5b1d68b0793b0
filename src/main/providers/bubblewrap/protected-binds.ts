import { closeSync, fstatSync, lstatSync } from 'node:fs'
import { join } from 'node:path'
import { protectedPathsWith } from '@shared/protected-paths'
import { NoFollowError, openChildDirectory, openRegularFile } from '../../core'
import { gitPointer, watchProtected, type ProtectedWatch } from '../../core/sandbox/workspace-entries'
import type { OpenBind } from './sandbox-binds'

/**
 * The protected paths of a sandbox's workspaces (see src/shared/protected-paths.ts) as binds: each
 * one that exists — a directory or a regular file, reached from the workspace's descriptor without
 * following a link on any component — is mounted read-only over itself, and every directory above
 * it inside the workspace is bound writable over itself, which makes it a mount point: the
 * sandbox can neither write the protected path nor rename, remove or replace it or its parents
 * (EBUSY). A symlink or anything else in the way is left alone (not followed, nothing bound).
 * The same holds for the handle's hidden (labelled) entries, which the sandbox then covers: the
 * label cannot be renamed off them. The workspace's `.git` is read-only when it is a `gitdir:`
 * pointer file, and pinned (bound writable over itself) when it is a folder.
 *
 * A path that does not exist when a run starts cannot be mounted over; whatever a run makes there
 * is moved into `.airlock/quarantine/` once the run is over (`watch`, then `quarantineChanged`).
 */
export class ProtectedBinds {
  private readonly paths: readonly string[]
  private readonly targets: readonly string[]

  /** `workspaces`: the handle's binds of whole workspaces (they stay open for the handle's life). */
  constructor(
    private readonly workspaces: readonly OpenBind[],
    paths: readonly string[] | undefined,
    hidden: readonly string[] = []
  ) {
    // The defaults are a floor: a policy that leaves one out does not unprotect it.
    this.paths = protectedPathsWith(paths ?? [])
    this.targets = [...new Set([...this.paths, ...hidden, gitPointer])]
  }

  /**
   * What exists now, as a key (path, device and inode of each protected entry): a launcher made
   * for another key binds another set, and is not used for a run.
   */
  key(): string {
    const seen: string[] = []
    for (const workspace of this.workspaces) {
      for (const path of this.targets) {
        try {
          const stat = lstatSync(join(workspace.dest, path))
          if (stat.isDirectory() || stat.isFile()) seen.push(`${workspace.dest}/${path}:${stat.isDirectory() ? 'd' : 'f'}:${stat.dev}:${stat.ino}`)
        } catch {
          // Absent (the common case): nothing to bind.
        }
      }
    }
    return seen.join('\n')
  }

  /** What each protected path is when a run starts (for `quarantineChanged` once it is over). */
  watch(): ProtectedWatch[] {
    return watchProtected(
      this.workspaces.map((workspace) => ({ fd: workspace.fd, path: workspace.dest })),
      this.paths
    )
  }

  /** Opens the binds for a launcher: read-only entries and their pinned parents. The caller closes them once the launcher holds its copies. */
  open(): OpenBind[] {
    const binds = new Map<string, OpenBind>()
    try {
      for (const workspace of this.workspaces) for (const path of this.targets) this.openOne(workspace, path, binds)
      return [...binds.values()]
    } catch (error) {
      for (const bind of binds.values()) closeSync(bind.fd)
      throw error
    }
  }

  private openOne(workspace: OpenBind, path: string, binds: Map<string, OpenBind>): void {
    const segments = path.split('/')
    const opened: { fd: number; dest: string }[] = []
    let parent = workspace.fd
    let dest = workspace.dest
    try {
      for (const [index, name] of segments.entries()) {
        dest = `${dest}/${name}`
        const last = index === segments.length - 1
        const fd = last ? openEntry(parent, name) : openDirectory(parent, name)
        if (fd === undefined) break
        opened.push({ fd, dest })
        parent = fd
      }
      if (opened.length < segments.length) return
      for (const [index, entry] of opened.entries()) {
        // Parents are pinned writable; the entry is read-only, except a `.git` folder (pinned only).
        const writable = index < opened.length - 1 || (path === gitPointer && fstatSync(entry.fd).isDirectory())
        const bound = binds.get(entry.dest)
        // One bind per path, read-only winning (a protected folder that is also the parent of another).
        if (bound && (!bound.writable || writable)) continue
        if (bound) closeSync(bound.fd)
        binds.set(entry.dest, { fd: entry.fd, dest: entry.dest, writable })
        opened[index] = { fd: -1, dest: entry.dest }
      }
    } finally {
      for (const entry of opened) if (entry.fd >= 0) closeSync(entry.fd)
    }
  }
}

/** A directory below `parent`, or undefined when it is absent, a link or not a directory. */
function openDirectory(parent: number, name: string): number | undefined {
  try {
    return openChildDirectory(parent, name)
  } catch (error) {
    if (error instanceof NoFollowError || isMissing(error)) return undefined
    throw error
  }
}

/** A protected entry: a directory or a regular file (a link, FIFO or device is not bound). */
function openEntry(parent: number, name: string): number | undefined {
  const directory = openDirectory(parent, name)
  if (directory !== undefined) return directory
  try {
    return openRegularFile(parent, name).fd
  } catch (error) {
    if (error instanceof NoFollowError || isMissing(error)) return undefined
    throw error
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EACCES'
}
