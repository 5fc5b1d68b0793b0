import { isUtf8 } from 'node:buffer'
import { closeSync, type Dirent, type Stats } from 'node:fs'
import { lstat, opendir } from 'node:fs/promises'
import { workspaceListLimit, workspaceReadLimit, type WorkspaceChange, type WorkspaceEntry, type WorkspaceFile } from '@shared/ipc/workspace'
import { readAt } from '../files/workspace'
import { descriptorPath } from '../core'
import { browserComponents, entryName, isoTime, openFolderAt, openRegularFileAt, openWorkspaceRoot, WorkspaceBrowserError } from './workspace-entries'
import { recentBounds, recentChanges, type RecentWalk } from './workspace-recent'

/** What the browser needs from the host: the real path of an agent's workspace (throws `agent.not_found` for an unknown agent). */
export type WorkspaceBrowserOptions = {
  workspaceOf: (agentId: string) => string
  /** The newest checkpointed change of each path (`WorkspaceCheckpoints.recentChanges`): links recent files to their calls, and lists deletions. */
  checkpointed?: (agentId: string, limit: number) => { path: string; change: WorkspaceChange['change']; callId: string | null; at: string }[]
  /** Bounds of `recent` (tests make them small). */
  recentBounds?: { maxEntries: number; maxDepth: number; maxMs: number }
}

/** A listed folder: its path ('' for the workspace), its entries (folders first, then by name) and whether the list was cut. */
export type WorkspaceListing = { path: string; entries: WorkspaceEntry[]; truncated: boolean }

/**
 * The operator's read-only view of an agent's workspace (SPEC §11 Agents view). The workspace is
 * written by sandboxed code, so every entry is hostile: folders are walked from the workspace's
 * root descriptor one name at a time without following links (see workspace-entries.ts), links
 * are listed as links and never followed, files are read only when they are regular single-link
 * files whose opened descriptor is the inode that was looked at, and reads and walks are bounded.
 */
export class WorkspaceBrowser {
  constructor(private readonly options: WorkspaceBrowserOptions) {}

  /** One folder's entries (at most `workspaceListLimit`; `truncated` says there were more). */
  async list(agentId: string, path = ''): Promise<WorkspaceListing> {
    const components = browserComponents(path)
    return this.withRoot(agentId, components, async (rootFd) => {
      const fd = openFolderAt(rootFd, components)
      try {
        return { path: components.join('/'), ...(await listFolder(fd, components)) }
      } finally {
        closeSync(fd)
      }
    })
  }

  /** One file as the viewer shows it: UTF-8 text cut at `workspaceReadLimit` bytes, or only its size when it is binary. */
  async read(agentId: string, path: string): Promise<WorkspaceFile> {
    const components = browserComponents(path)
    if (components.length === 0) throw new WorkspaceBrowserError('workspace.is_directory', 'Name a file: the workspace itself is a folder.', { path })
    return this.withRoot(agentId, components, async (rootFd) => {
      const dirFd = openFolderAt(rootFd, components.slice(0, -1))
      let opened: { fd: number; stat: Stats }
      try {
        opened = openRegularFileAt(dirFd, components.at(-1) as string, components)
      } finally {
        closeSync(dirFd)
      }
      try {
        // One byte past the limit tells a file that is longer (or grew since fstat).
        const bytes = await readAt(opened.fd, workspaceReadLimit + 1, 0)
        return fileView(components.join('/'), opened.stat, bytes)
      } finally {
        closeSync(opened.fd)
      }
    })
  }

  /** The files changed most recently anywhere in the workspace, newest first (a bounded walk; see `recentChanges`). */
  async recent(agentId: string, limit = 50): Promise<RecentWalk> {
    const walk = await this.withRoot(agentId, [], (rootFd) => recentChanges(rootFd, limit, this.options.recentBounds ?? recentBounds))
    const recorded = this.options.checkpointed?.(agentId, limit) ?? []
    if (recorded.length === 0) return walk
    const byPath = new Map(recorded.map((change) => [change.path, change]))
    const listed = new Set(walk.changes.map((change) => change.path))
    const changes: WorkspaceChange[] = [
      ...walk.changes.map((change) => {
        const found = byPath.get(change.path)
        return found && found.change !== 'deleted' ? { ...change, change: found.change, callId: found.callId } : change
      }),
      // Deleted files are gone from the walk: their checkpoint says when and by which call.
      ...recorded
        .filter((change) => change.change === 'deleted' && !listed.has(change.path))
        .map((change) => ({ path: change.path, bytes: 0, modifiedAt: change.at, change: change.change, callId: change.callId }))
    ]
    changes.sort((a, b) => Date.parse(b.modifiedAt) - Date.parse(a.modifiedAt) || a.path.localeCompare(b.path))
    return { ...walk, changes: changes.slice(0, limit) }
  }

  /** Runs `use` on the workspace's root descriptor; a filesystem error (EACCES, EIO) becomes `workspace.io_error` naming the path. */
  private async withRoot<T>(agentId: string, components: readonly string[], use: (rootFd: number) => Promise<T>): Promise<T> {
    const rootFd = openWorkspaceRoot(this.options.workspaceOf(agentId))
    try {
      return await use(rootFd)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (error instanceof WorkspaceBrowserError || typeof code !== 'string' || !code.startsWith('E')) throw error
      const path = components.join('/') || 'the workspace'
      throw new WorkspaceBrowserError('workspace.io_error', `${path} cannot be read (${code}).`, { path, errno: code })
    } finally {
      closeSync(rootFd)
    }
  }
}

/**
 * Reads at most `workspaceListLimit` entries of an open folder (a folder of a million entries is
 * never read whole) and looks at each with lstat: what an entry is comes from the inode, not from
 * the folder's type hint, and a link is reported as a link.
 */
async function listFolder(fd: number, components: readonly string[]): Promise<{ entries: WorkspaceEntry[]; truncated: boolean }> {
  const names: Buffer[] = []
  let truncated = false
  const dir = await opendir(descriptorPath(fd), { encoding: 'buffer' as BufferEncoding, bufferSize: 256 })
  try {
    for await (const entry of dir as AsyncIterable<Dirent<Buffer>>) {
      if (names.length === workspaceListLimit) {
        truncated = true
        break
      }
      names.push(entry.name)
    }
  } finally {
    await dir.close().catch(() => undefined)
  }
  const entries: WorkspaceEntry[] = []
  const base = Buffer.from(`${descriptorPath(fd)}/`)
  for (let start = 0; start < names.length; start += 64) {
    const batch = names.slice(start, start + 64)
    const stats = await Promise.all(batch.map((name) => lstat(Buffer.concat([base, name])).catch(() => undefined)))
    for (const [index, stat] of stats.entries()) {
      // Gone since the folder was read: not listed.
      if (!stat) continue
      const { name, readable } = entryName(batch[index] as Buffer)
      // A name that is not UTF-8 is listed (the operator sees it is there) but never opened through its escaped form.
      const kind = readable ? kindOf(stat) : 'other'
      entries.push({ name, path: [...components, name].join('/'), kind, bytes: kind === 'file' ? stat.size : 0, modifiedAt: isoTime(stat.mtimeMs) })
    }
  }
  entries.sort((a, b) => Number(b.kind === 'directory') - Number(a.kind === 'directory') || a.name.localeCompare(b.name))
  return { entries, truncated }
}

function kindOf(stat: Stats): WorkspaceEntry['kind'] {
  if (stat.isSymbolicLink()) return 'symlink'
  if (stat.isDirectory()) return 'directory'
  if (stat.isFile()) return 'file'
  return 'other'
}

/**
 * The viewer's form of a file's first bytes: binary when they hold a NUL or are not UTF-8 (a
 * character cut at the limit does not count), else the text, cut at a character boundary.
 */
export function fileView(path: string, stat: Stats, bytes: Buffer): WorkspaceFile {
  const truncated = bytes.length > workspaceReadLimit || stat.size > workspaceReadLimit
  let shown = bytes.subarray(0, workspaceReadLimit)
  if (truncated) shown = shown.subarray(0, completeCharacters(shown))
  const binary = shown.includes(0) || !isUtf8(shown)
  return { path, bytes: Math.max(stat.size, bytes.length), modifiedAt: isoTime(stat.mtimeMs), binary, text: binary ? null : shown.toString('utf8'), truncated }
}

/** The length of `bytes` without a UTF-8 character cut at its end (up to 3 bytes of a started sequence). */
function completeCharacters(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number
    if ((byte & 0xc0) === 0x80) continue
    if (byte < 0x80) return bytes.length
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2
    return needed > back ? bytes.length - back : bytes.length
  }
  return bytes.length
}
