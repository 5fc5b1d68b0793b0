import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, type Stats } from 'node:fs'
import { descriptorPath } from '../../core'
import { pathKey, type CheckpointChange, type EntryKind, type EntryState, type IndexedEntry } from '../../store'
import { ChangedWhileReading, type ContentStore } from './content-store'

/** Bounds of one walk: a workspace is written by sandboxed code and can hold anything. */
export const scanBounds = { maxEntries: 1_000_000, maxDepth: 256, yieldEvery: 2000 } as const

/** Names the walk leaves alone at the workspace root: the host's own (execution areas, the agent's history file). */
const hostNames = new Set(['.airlock', '.exec_history'])

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW
const fileFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY

/** What a walk found against the index: the changes, the index's updates, and what the store gained. */
export type ScanResult = {
  changes: CheckpointChange[]
  upserts: IndexedEntry[]
  removed: Buffer[]
  newBytes: number
  /** False when a bound stopped the walk or a folder could not be read: entries not seen are kept as they were. */
  complete: boolean
  /** Blocks allocated to what was walked (each inode once) and entries: the workspace's disk use. */
  usage: { bytes: number; entries: number }
  /** Paths that changed while being read (recorded changed, without content). */
  unstable: string[]
}

const kindOf = (stat: Stats): EntryKind => (stat.isFile() ? 'file' : stat.isDirectory() ? 'dir' : stat.isSymbolicLink() ? 'link' : 'other')

/** True when the stat facts say the entry is as indexed (content unread). */
function unchanged(entry: IndexedEntry, stat: Stats): boolean {
  const kind = kindOf(stat)
  if (kind !== entry.kind || (stat.mode & 0o7777) !== entry.mode) return false
  if (kind === 'dir') return true
  return stat.ino === entry.ino && stat.size === entry.size && stat.mtimeMs === entry.mtimeMs && stat.ctimeMs === entry.ctimeMs
}

const stateOf = (entry: EntryState): EntryState => ({ kind: entry.kind, mode: entry.mode, size: entry.size, hash: entry.hash, kept: entry.kept })

const sameState = (a: EntryState, b: EntryState) => a.kind === b.kind && a.mode === b.mode && a.hash === b.hash && (a.kind !== 'other' || a.size === b.size)

/**
 * Walks a workspace from its open root `rootFd` and compares what it finds with `index` (what the
 * last walk saw): an entry whose kind, mode, inode, size, mtime and ctime are as indexed costs one
 * lstat; any other file is read (once, with O_NOFOLLOW|O_NONBLOCK, checked to be the very inode
 * lstat saw) into the content store, a link's target likewise. Every folder is opened below its
 * parent's descriptor with O_NOFOLLOW, so a folder swapped for a link is never followed out, and
 * nothing the workspace holds (a `.git` with hooks, attributes, filters) is ever run: the walk only
 * reads bytes. FIFOs, sockets and devices are recorded by kind and mode, never opened.
 *
 * The system calls are synchronous (a few microseconds each); the walk gives the event loop back
 * every `scanBounds.yieldEvery` entries and between chunks of a large file.
 */
export async function scanWorkspace(rootFd: number, index: ReadonlyMap<string, IndexedEntry>, store: ContentStore, options: { maxFileBytes: number; known: (hash: string) => boolean; onStored: (hash: string, bytes: number) => void }): Promise<ScanResult> {
  const result: ScanResult = { changes: [], upserts: [], removed: [], newBytes: 0, complete: true, usage: { bytes: 0, entries: 0 }, unstable: [] }
  const seen = new Set<string>()
  // Folders whose listing failed: what the index holds below them is kept, not taken for deleted.
  const unread: Buffer[] = []
  const inodes = new Set<string>()
  let sinceYield = 0

  const capture = async (dirFd: number, name: Buffer, stat: Stats): Promise<{ hash: string | null; kept: boolean }> => {
    const at = Buffer.concat([Buffer.from(`${descriptorPath(dirFd)}/`), name])
    if (stat.isSymbolicLink()) {
      const target = readlinkSync(at, { encoding: 'buffer' })
      const stored = store.putBytes(target, options.known)
      if (stored.newBytes > 0) options.onStored(stored.hash, stored.newBytes)
      result.newBytes += stored.newBytes
      return { hash: stored.hash, kept: true }
    }
    if (!stat.isFile()) return { hash: null, kept: false }
    for (let attempt = 0; attempt < 3; attempt++) {
      let fd: number
      try {
        fd = openSync(at, fileFlags)
      } catch {
        // Gone or swapped since the lstat: recorded without content.
        return { hash: null, kept: false }
      }
      try {
        const opened = fstatSync(fd)
        if (!opened.isFile() || opened.ino !== stat.ino) return { hash: null, kept: false }
        const stored = await store.putFile(fd, options.maxFileBytes, options.known)
        if (stored.newBytes > 0) options.onStored(stored.hash, stored.newBytes)
        result.newBytes += stored.newBytes
        return { hash: stored.hash, kept: stored.kept }
      } catch (error) {
        if (!(error instanceof ChangedWhileReading)) throw error
      } finally {
        closeSync(fd)
      }
    }
    return { hash: null, kept: false }
  }

  const visit = async (dirFd: number, prefix: Buffer | undefined, depth: number): Promise<void> => {
    let names: Buffer[]
    try {
      names = readdirSync(descriptorPath(dirFd), { encoding: 'buffer' })
    } catch {
      if (prefix) unread.push(prefix)
      result.complete = false
      return
    }
    for (const name of names) {
      if (!prefix && hostNames.has(name.toString('latin1'))) continue
      if (result.usage.entries >= scanBounds.maxEntries) {
        result.complete = false
        if (prefix) unread.push(prefix)
        return
      }
      if (++sinceYield >= scanBounds.yieldEvery) {
        sinceYield = 0
        await new Promise((resume) => setImmediate(resume))
      }
      const path = prefix ? Buffer.concat([prefix, Buffer.from('/'), name]) : name
      let stat: Stats
      try {
        stat = lstatSync(Buffer.concat([Buffer.from(`${descriptorPath(dirFd)}/`), name]))
      } catch {
        continue
      }
      result.usage.entries += 1
      const inode = `${stat.dev}:${stat.ino}`
      if (stat.isDirectory() || stat.nlink <= 1 || !inodes.has(inode)) result.usage.bytes += stat.blocks * 512
      if (stat.nlink > 1 && !stat.isDirectory()) inodes.add(inode)
      const key = pathKey(path)
      seen.add(key)
      const was = index.get(key)
      if (!was || !unchanged(was, stat)) {
        const kind = kindOf(stat)
        const content = kind === 'dir' ? { hash: null, kept: false } : await capture(dirFd, name, stat)
        const now: IndexedEntry = { path, kind, mode: stat.mode & 0o7777, size: kind === 'dir' ? 0 : stat.size, hash: content.hash, kept: content.kept, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, blocks: stat.blocks }
        if (kind === 'file' && content.hash === null) result.unstable.push(path.toString('utf8'))
        result.upserts.push(now)
        if (!was) result.changes.push({ path, change: 'added', before: null, after: stateOf(now) })
        else if (!sameState(was, now)) {
          const change = was.kind !== now.kind ? 'type' : was.hash === now.hash && was.size === now.size ? 'mode' : 'modified'
          result.changes.push({ path, change, before: stateOf(was), after: stateOf(now) })
        }
      }
      if (stat.isDirectory()) {
        if (depth + 1 > scanBounds.maxDepth) {
          result.complete = false
          unread.push(path)
          continue
        }
        let child: number
        try {
          child = openSync(Buffer.concat([Buffer.from(`${descriptorPath(dirFd)}/`), name]), directoryFlags)
        } catch {
          // Swapped for a link or unreadable since the lstat: its index entries stay as they were.
          unread.push(path)
          result.complete = false
          continue
        }
        try {
          await visit(child, path, depth + 1)
        } finally {
          closeSync(child)
        }
      }
    }
  }

  result.usage.bytes += fstatSync(rootFd).blocks * 512
  await visit(rootFd, undefined, 0)
  // A walk cut by its entry bound did not see what came after: nothing is taken for deleted.
  if (result.usage.entries >= scanBounds.maxEntries) return result
  const isUnread = (path: Buffer) => unread.some((folder) => path.length > folder.length && path[folder.length] === 0x2f && path.subarray(0, folder.length).equals(folder))
  for (const [key, was] of index) {
    if (seen.has(key) || isUnread(was.path)) continue
    result.removed.push(was.path)
    result.changes.push({ path: was.path, change: 'deleted', before: stateOf(was), after: null })
  }
  return result
}
