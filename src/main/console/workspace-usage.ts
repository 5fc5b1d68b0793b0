import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, statfsSync, type Stats } from 'node:fs'
import type { WorkspaceUsage } from '../files/workspace'
import { descriptorPath, openDirectoryNoFollow } from '../core/sandbox'
import { drainEvents, WorkspaceWatch } from './checkpoints/workspace-watch'

/** Bounds of a whole walk, as `workspaceUsage` has them: past them the use is a lower bound (`complete: false`). */
const bounds = { maxEntries: 1_000_000, maxDepth: 256, yieldEvery: 2000 } as const

/** Space the file system may lose beyond what the index saw, summed since the last whole walk, before another is made (the console's own database and logs live there too). */
const unexplainedSlackBytes = 8 * 1024 * 1024

/** A whole walk at least this often per workspace, whatever the watch says (what inotify never reports cannot drift for long). */
const wholeWalkEveryMs = 10 * 60 * 1000

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

/** A subfolder as its parent lists it: its name's bytes and its inode (a folder replaced at that name is a new one). */
type Child = { name: Buffer; ino: number }

/** One folder's direct entries: their blocks (files with more than one link counted apart, by inode), how many, and its subfolders. */
type Folder = { ino: number; bytes: number; entries: number; linked: { inode: string; bytes: number }[]; children: Map<string, Child> }

type Tracked = {
  watch: WorkspaceWatch
  folders: Map<string, Folder>
  /** Inodes with more than one link: their blocks once, however many names they have. */
  linked: Map<string, { bytes: number; names: number }>
  total: { bytes: number; entries: number }
  complete: boolean
  wholeAt: number
  freeBytes: number
  /** Space the file system lost since the last whole walk beyond what the index explains, summed (so small amounts per call cannot add up unseen). */
  unexplained: number
  /** A rescan met a new hard link: its other names may be counted as plain files in folders nobody marked. */
  newLink: boolean
  /** True while the whole workspace is walked (every name of every inode is then seen). */
  wholeWalk: boolean
  queue: Promise<unknown>
}

/**
 * A workspace's disk use (`limits.diskMb`), kept up to date from what changed instead of walked
 * whole after every run (issue 29: the after-run walk was O(workspace) on every command — ~4 ms on
 * an empty workspace, seconds on a project with its `node_modules`). The same numbers as
 * `workspaceUsage` (blocks as `du` counts them, each inode once, `.airlock/` included, links never
 * followed), from a per-folder index that the workspace's inotify watch (`WorkspaceWatch`, as
 * checkpoints use it) marks dirty: a measurement re-reads only the folders that changed.
 *
 * It walks the whole workspace when it cannot vouch for the index: the first time, when the watch
 * lost events or folders, when a bound was reached, when a new hard link appeared (the link count
 * of its other name changes silently), when the file system lost more space than the
 * index explains (a file filled through a shared mapping writes no inotify event; so does a write
 * through a hard link from outside) by more than 8 MiB summed since the last whole walk, and at
 * least every ten minutes. So writes no event reports can hide at most 8 MiB from the quota (and a
 * concurrent writer elsewhere on the file system only makes whole walks come sooner; one that
 * frees space at the same time could mask as much as it frees until the next whole walk).
 */
export class WorkspaceUsageIndex {
  private readonly tracked = new Map<string, Tracked>()
  private sinceYield = 0
  /** How many whole walks were made (all workspaces): the rest were rescans of changed folders. */
  wholeWalks = 0

  /** The workspace's use now; measurements of one workspace run one after the other. */
  measure(workspace: string): Promise<WorkspaceUsage> {
    const tracked = this.trackedFor(workspace)
    const next = tracked.queue.then(() => this.update(workspace, tracked))
    tracked.queue = next.catch(() => undefined)
    return next
  }

  /** Stops watching a workspace (its agent was removed). */
  forget(workspace: string): void {
    this.tracked.get(workspace)?.watch.close()
    this.tracked.delete(workspace)
  }

  dispose(): void {
    for (const workspace of [...this.tracked.keys()]) this.forget(workspace)
  }

  private trackedFor(workspace: string): Tracked {
    let tracked = this.tracked.get(workspace)
    if (!tracked) {
      tracked = {
        watch: new WorkspaceWatch(),
        folders: new Map(),
        linked: new Map(),
        total: { bytes: 0, entries: 0 },
        complete: false,
        wholeAt: 0,
        freeBytes: 0,
        unexplained: 0,
        newLink: false,
        wholeWalk: false,
        queue: Promise.resolve()
      }
      this.tracked.set(workspace, tracked)
    }
    return tracked
  }

  private async update(workspace: string, tracked: Tracked): Promise<WorkspaceUsage> {
    await drainEvents()
    const root = openDirectoryNoFollow(workspace)
    try {
      const before = { ...tracked.total }
      const changed = tracked.watch.take()
      let walked = changed.whole || !tracked.complete || Date.now() - tracked.wholeAt > wholeWalkEveryMs
      if (changed.whole || walked) await this.walkWhole(root, tracked)
      else for (const key of changed.folders) await this.rescan(root, tracked, key)
      // A link made to a file changes its link count without a word to the folder of its other name.
      if (tracked.newLink) {
        await this.walkWhole(root, tracked)
        walked = true
      }
      const freeBytes = freeBytesOf(root)
      if (!walked) {
        // What the file system lost that the index does not explain: maybe writes inotify never saw.
        tracked.unexplained += Math.max(0, tracked.freeBytes - freeBytes - (tracked.total.bytes - before.bytes))
        if (tracked.unexplained > unexplainedSlackBytes) await this.walkWhole(root, tracked)
      }
      tracked.freeBytes = freeBytes
      return { bytes: tracked.total.bytes + fstatSync(root).blocks * 512, entries: tracked.total.entries, complete: tracked.complete }
    } catch (error) {
      // A half-updated index must not be trusted next time.
      tracked.complete = false
      throw error
    } finally {
      closeSync(root)
    }
  }

  private async walkWhole(root: number, tracked: Tracked): Promise<void> {
    this.wholeWalks += 1
    tracked.watch.close()
    tracked.watch = new WorkspaceWatch()
    tracked.folders.clear()
    tracked.linked.clear()
    tracked.total = { bytes: 0, entries: 0 }
    tracked.complete = true
    tracked.newLink = false
    tracked.unexplained = 0
    tracked.wholeWalk = true
    try {
      await this.walk(root, tracked, '', 0)
    } finally {
      tracked.wholeWalk = false
    }
    tracked.watch.trusted()
    tracked.wholeAt = Date.now()
  }

  /** Reads one folder and every folder below it (each recorded afresh). */
  private async walk(fd: number, tracked: Tracked, key: string, depth: number): Promise<void> {
    const children = this.read(fd, tracked, key, true)
    if (this.sinceYield > bounds.yieldEvery) {
      this.sinceYield = 0
      await new Promise((resume) => setImmediate(resume))
    }
    for (const [childKey, child] of children) {
      if (depth + 1 > bounds.maxDepth) {
        tracked.complete = false
        return
      }
      const childFd = openChild(fd, child.name)
      if (childFd === undefined) continue
      try {
        await this.walk(childFd, tracked, childKey, depth + 1)
      } finally {
        closeSync(childFd)
      }
    }
  }

  /** A folder the watch marked: read again; folders that appeared (or were replaced) are walked, those gone forgotten. */
  private async rescan(root: number, tracked: Tracked, key: string): Promise<void> {
    const old = tracked.folders.get(key)
    if (!old) return // below a folder that is gone, or one a walk of its parent reads
    const fd = openKey(root, key)
    if (fd === undefined) return this.drop(tracked, key)
    try {
      if (fstatSync(fd).ino !== old.ino) {
        // Another folder at this name now: recorded afresh, with a watch of its own.
        this.drop(tracked, key)
        return await this.walk(fd, tracked, key, key.split('/').length)
      }
      for (const [childKey, child] of this.read(fd, tracked, key, false, old)) {
        const childFd = openChild(fd, child.name)
        if (childFd === undefined) continue
        try {
          await this.walk(childFd, tracked, childKey, childKey.split('/').length)
        } finally {
          closeSync(childFd)
        }
      }
    } finally {
      closeSync(fd)
    }
  }

  /**
   * Lists a folder (watched before it is listed, so nothing changed meanwhile goes unseen) and
   * records its entries in place of `old`. Returns the subfolders the caller must read: all of them
   * on a walk; on a rescan those new at their name (a replaced one is forgotten first). Subfolders
   * no longer there are forgotten.
   */
  private read(fd: number, tracked: Tracked, key: string, walking: boolean, old?: Folder): [string, Child][] {
    tracked.watch.add(key, descriptorPath(fd), walking)
    if (old) this.subtract(tracked, old)
    const names = safeReaddir(fd)
    const room = bounds.maxEntries - tracked.total.entries
    if (names.length > room) tracked.complete = false
    const folder: Folder = { ino: fstatSync(fd).ino, bytes: 0, entries: 0, linked: [], children: new Map() }
    for (const name of names.slice(0, Math.max(0, room))) {
      folder.entries += 1
      this.sinceYield += 1
      const stat = lstatOrUndefined(Buffer.concat([Buffer.from(`${descriptorPath(fd)}/`), name]))
      if (!stat) continue
      if (stat.nlink > 1 && !stat.isDirectory()) {
        const inode = `${stat.dev}:${stat.ino}`
        if (!tracked.wholeWalk && !tracked.linked.has(inode)) tracked.newLink = true
        folder.linked.push({ inode, bytes: stat.blocks * 512 })
      } else folder.bytes += stat.blocks * 512
      if (stat.isDirectory()) folder.children.set(childKeyOf(key, name), { name, ino: stat.ino })
    }
    for (const childKey of old?.children.keys() ?? []) if (!folder.children.has(childKey)) this.drop(tracked, childKey)
    const unread: [string, Child][] = []
    for (const [childKey, child] of folder.children) {
      if (walking) unread.push([childKey, child])
      else if (tracked.folders.get(childKey)?.ino !== child.ino) {
        this.drop(tracked, childKey)
        unread.push([childKey, child])
      }
    }
    tracked.folders.set(key, folder)
    this.add(tracked, folder)
    return unread
  }

  /** Forgets a folder and everything below it (gone, or replaced). */
  private drop(tracked: Tracked, key: string): void {
    const folder = tracked.folders.get(key)
    if (!folder) return
    tracked.folders.delete(key)
    this.subtract(tracked, folder)
    for (const child of folder.children.keys()) this.drop(tracked, child)
    tracked.watch.remove(key)
  }

  private add(tracked: Tracked, folder: Folder): void {
    tracked.total.bytes += folder.bytes
    tracked.total.entries += folder.entries
    for (const { inode, bytes } of folder.linked) {
      const known = tracked.linked.get(inode)
      // One inode's blocks once, as last seen (a write through one of its names changes them all).
      tracked.total.bytes += bytes - (known?.bytes ?? 0)
      tracked.linked.set(inode, { bytes, names: (known?.names ?? 0) + 1 })
    }
  }

  private subtract(tracked: Tracked, folder: Folder): void {
    tracked.total.bytes -= folder.bytes
    tracked.total.entries -= folder.entries
    for (const { inode } of folder.linked) {
      const known = tracked.linked.get(inode)
      if (!known) continue
      if (--known.names === 0) {
        tracked.linked.delete(inode)
        tracked.total.bytes -= known.bytes
      }
    }
  }
}

/** Keys are relative paths with the names' bytes kept (latin1 maps each byte to one character). */
function childKeyOf(key: string, name: Buffer): string {
  const part = name.toString('latin1')
  return key === '' ? part : `${key}/${part}`
}

/** Opens a recorded folder from the root, one component at a time, never following a link; undefined when it is gone. */
function openKey(root: number, key: string): number | undefined {
  // The descriptor's /proc path is a link to the very folder already open: followed on purpose.
  if (key === '') return openSync(descriptorPath(root), constants.O_RDONLY | constants.O_DIRECTORY)
  let fd = root
  for (const part of key.split('/')) {
    const next = openChild(fd, Buffer.from(part, 'latin1'))
    if (fd !== root) closeSync(fd)
    if (next === undefined) return undefined
    fd = next
  }
  return fd
}

/** A subfolder opened no-follow: one swapped for a link since it was listed is skipped, never followed. */
function openChild(fd: number, name: Buffer): number | undefined {
  try {
    return openSync(Buffer.concat([Buffer.from(`${descriptorPath(fd)}/`), name]), directoryFlags)
  } catch {
    return undefined
  }
}

function safeReaddir(fd: number): Buffer[] {
  try {
    return readdirSync(descriptorPath(fd), { encoding: 'buffer' })
  } catch {
    return []
  }
}

function lstatOrUndefined(path: Buffer): Stats | undefined {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

function freeBytesOf(fd: number): number {
  const fs = statfsSync(descriptorPath(fd))
  return fs.bfree * fs.bsize
}
