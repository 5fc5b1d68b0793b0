import { AirlockError } from '@shared/errors'
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, type Stats } from 'node:fs'
import { descriptorPath } from '../../core'
import { pathKey, type CheckpointChange, type EntryKind, type EntryState, type IndexedEntry } from '../../store'
import { openParent, split } from './checkpoint-apply'
import { ChangedWhileReading, type ContentStore } from './content-store'

/**
 * Bounds of one walk: a workspace is written by sandboxed code and can hold anything. A file larger
 * than `maxHashBytes` (a sparse file costs the quota nothing but would take minutes to read) is
 * recorded as changed by its stat facts alone, without a hash.
 */
export const scanBounds = { maxEntries: 1_000_000, maxDepth: 256, yieldEvery: 2000, maxHashBytes: 4 * 1024 ** 3 } as const

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
  /** Only some folders were walked (`usage` then covers only them). */
  partial?: boolean
}

const kindOf = (stat: Stats): EntryKind => (stat.isFile() ? 'file' : stat.isDirectory() ? 'dir' : stat.isSymbolicLink() ? 'link' : 'other')

/** True when the stat facts say the entry is as indexed (content unread). */
function unchanged(entry: IndexedEntry, stat: Stats): boolean {
  const kind = kindOf(stat)
  if (kind !== entry.kind || (stat.mode & 0o7777) !== entry.mode || stat.ino !== entry.ino || stat.uid !== entry.uid || stat.gid !== entry.gid) return false
  if (kind === 'dir') return true
  return stat.ino === entry.ino && stat.size === entry.size && stat.mtimeMs === entry.mtimeMs && stat.ctimeMs === entry.ctimeMs
}

const stateOf = (entry: EntryState): EntryState => ({
  kind: entry.kind,
  mode: entry.mode,
  size: entry.size,
  hash: entry.hash,
  kept: entry.kept,
  uid: entry.uid,
  gid: entry.gid
})

/** Whether two states are the same content and mode; a file without a hash (too large, changing) is never the same as another. */
const sameState = (a: EntryState, b: EntryState) =>
  a.kind === b.kind &&
  a.mode === b.mode &&
  a.uid === b.uid &&
  a.gid === b.gid &&
  (a.kind === 'dir' || (a.kind === 'other' ? a.size === b.size : a.hash !== null && a.hash === b.hash))

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
export type ScanOptions = {
  maxFileBytes: number
  known: (hash: string) => boolean
  onStored: (hash: string, bytes: number) => void
  /**
   * Walk only these folders (path keys; '' the root), each one level deep, and whole any folder
   * that is new since the index (a workspace watch's dirty set). Absent: walk everything.
   */
  only?: ReadonlySet<string>
  /**
   * Told about each folder before it is listed (`fresh`: not in the index as this very folder;
   * `opened`: the descriptor path of the folder as opened, no link followed), so it can be watched first.
   */
  onFolder?: (key: string, opened: string, fresh: boolean) => void
  /** Whether a folder is watched already: a partial walk also goes down into one that is not (made by another process, say). */
  watched?: (key: string) => boolean
}

/** A partial walk that could not be done as asked (a changed folder can no longer be opened): walk everything instead. */
export class WholeWalkNeeded extends AirlockError<'checkpoint.whole_walk_needed'> {
  constructor(message = 'a whole walk of the workspace is needed') {
    super('checkpoint.whole_walk_needed', message)
  }
}

export async function scanWorkspace(rootFd: number, index: ReadonlyMap<string, IndexedEntry>, store: ContentStore, options: ScanOptions): Promise<ScanResult> {
  const result: ScanResult = { changes: [], upserts: [], removed: [], newBytes: 0, complete: true, usage: { bytes: 0, entries: 0 }, unstable: [] }
  const seen = new Set<string>()
  // Folders whose listing failed: what the index holds below them is kept, not taken for deleted.
  const unread: Buffer[] = []
  const inodes = new Set<string>()
  let sinceYield = 0

  const capture = async (dirFd: number, name: Buffer, stat: Stats): Promise<{ hash: string | null; kept: boolean }> => {
    const at = Buffer.concat([Buffer.from(`${descriptorPath(dirFd)}/`), name])
    if (stat.isSymbolicLink()) {
      let target: Buffer
      try {
        target = readlinkSync(at, { encoding: 'buffer' })
      } catch {
        // Swapped for something else since the lstat: recorded without content.
        return { hash: null, kept: false }
      }
      const stored = store.putBytes(target, options.known)
      if (stored.newBytes > 0) options.onStored(stored.hash, stored.newBytes)
      result.newBytes += stored.newBytes
      return { hash: stored.hash, kept: true }
    }
    if (!stat.isFile() || stat.size > scanBounds.maxHashBytes) return { hash: null, kept: false }
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

  // Folders whose every entry was listed in this walk: their index children not seen are deleted.
  const listed = new Set<string>()
  const visit = async (dirFd: number, prefix: Buffer | undefined, depth: number, deep: boolean): Promise<void> => {
    const folderKey = prefix ? pathKey(prefix) : ''
    if (listed.has(folderKey)) return
    listed.add(folderKey)
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
      const fresh = !was || !unchanged(was, stat)
      if (fresh) {
        const kind = kindOf(stat)
        const content = kind === 'dir' ? { hash: null, kept: false } : await capture(dirFd, name, stat)
        const now: IndexedEntry = {
          path,
          kind,
          mode: stat.mode & 0o7777,
          size: kind === 'dir' ? 0 : stat.size,
          hash: content.hash,
          kept: content.kept,
          uid: stat.uid,
          gid: stat.gid,
          mtimeMs: stat.mtimeMs,
          ctimeMs: stat.ctimeMs,
          ino: stat.ino,
          blocks: stat.blocks
        }
        if (kind === 'file' && content.hash === null && stat.size <= scanBounds.maxHashBytes) result.unstable.push(path.toString('utf8'))
        result.upserts.push(now)
        if (!was) result.changes.push({ path, change: 'added', before: null, after: stateOf(now) })
        else if (!sameState(was, now)) {
          const change = was.kind !== now.kind ? 'type' : was.hash !== null && was.hash === now.hash ? 'mode' : 'modified'
          result.changes.push({ path, change, before: stateOf(was), after: stateOf(now) })
        }
      }
      // A partial walk goes down only into folders that are new (or replaced) since the index.
      if (stat.isDirectory() && (deep || fresh || (options.watched !== undefined && !options.watched(key)))) {
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
          options.onFolder?.(key, descriptorPath(child), fresh)
          await visit(child, path, depth + 1, true)
        } finally {
          closeSync(child)
        }
      }
    }
  }

  result.usage.bytes += fstatSync(rootFd).blocks * 512
  if (!options.only) {
    options.onFolder?.('', descriptorPath(rootFd), false)
    await visit(rootFd, undefined, 0, true)
  } else {
    result.partial = true
    const folders = [...options.only].sort((a, b) => a.length - b.length)
    for (const key of folders) {
      const fd = openBelow(rootFd, key)
      if (fd === undefined) throw new WholeWalkNeeded(`${key} can no longer be opened`)
      try {
        await visit(fd, key === '' ? undefined : Buffer.from(key, 'latin1'), key === '' ? 0 : key.split('/').length, false)
      } finally {
        closeSync(fd)
      }
    }
  }
  // A walk cut by its entry bound did not see what came after: nothing is taken for deleted.
  if (result.usage.entries >= scanBounds.maxEntries) return result
  const isUnread = (path: Buffer) =>
    unread.some((folder) => path.length > folder.length && path[folder.length] === 0x2f && path.subarray(0, folder.length).equals(folder))
  // An entry is gone when the folder holding it was listed without it, or a folder above it is gone.
  const gone = new Set<string>()
  const parentOf = (key: string) => key.slice(0, Math.max(0, key.lastIndexOf('/')))
  const remove = (key: string, was: IndexedEntry) => {
    gone.add(key)
    result.removed.push(was.path)
    result.changes.push({ path: was.path, change: 'deleted', before: stateOf(was), after: null })
  }
  for (const [key, was] of index) {
    // '' is the root's own entry (the mark of a walked workspace), never a listed name.
    if (key === '' || seen.has(key) || isUnread(was.path)) continue
    if (!options.only || listed.has(parentOf(key))) remove(key, was)
  }
  // A partial walk saw a folder gone: what the index holds below it is gone too.
  const goneFolders = new Set([...gone].filter((key) => index.get(key)?.kind === 'dir'))
  if (options.only && goneFolders.size > 0) {
    const below = (key: string) => {
      for (let folder = parentOf(key); folder !== ''; folder = parentOf(folder)) if (goneFolders.has(folder)) return true
      return false
    }
    for (const [key, was] of index) if (key !== '' && !seen.has(key) && !gone.has(key) && below(key)) remove(key, was)
  }
  result.changes.sort((a, b) => Buffer.compare(a.path, b.path))
  return result
}

/** Opens a folder below the root by its path key, no link followed; undefined when it is no longer a folder there. */
function openBelow(rootFd: number, key: string): number | undefined {
  try {
    return openParent(rootFd, split(Buffer.from(key, 'latin1')), false, { uid: -1, gid: -1, dedicated: false })
  } catch {
    return undefined
  }
}
