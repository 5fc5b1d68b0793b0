import { watch, type FSWatcher } from 'node:fs'

/** Folders one workspace may have watched; past it, every checkpoint walks the whole workspace. */
export const maxWatchedFolders = 8192

/** Events (of all workspaces) between two walks past which the queue may have overflowed: the next walk is a whole one. */
const maxEventsBetweenWalks = 8000

/**
 * Which folders of a workspace changed since the last walk, from the kernel's inotify (one watch
 * per folder, through `fs.watch`): a checkpoint then walks only those folders instead of the whole
 * tree, and skips the walk before a call when nothing changed since the last one. Any change to an
 * entry (write, create, delete, rename, chmod) is reported on the folder that holds it, from
 * whatever process and mount namespace made it (a sandbox's bind mount is the same inode).
 *
 * It is a dirty-folder set, never the record itself: when it cannot vouch (a watch failed, too many
 * folders or events, a watch that ended) it says `whole`, and the next walk looks at everything.
 * What inotify does not see — a write through a hard link from outside the workspace, a write
 * through a shared memory mapping, a network file system — is found by the next whole walk: one
 * runs at every console start and whenever the watch is not sure.
 */
/**
 * Every watch shares the event loop's one inotify queue (16 384 events by default): a flood in one
 * workspace can overflow it and drop another's events, which libuv does not report. So each
 * workspace's set is trusted only while the events of all workspaces since its last walk stay
 * below `maxEventsBetweenWalks`.
 */
let eventsOfAll = 0

export class WorkspaceWatch {
  private readonly watchers = new Map<string, FSWatcher>()
  private dirty = new Set<string>()
  private allAtTake = eventsOfAll
  private whole = true
  /** This workspace's own events since the last `take`. */
  private own = 0

  /**
   * Watches a folder (path key relative to the root, '' for the root) before it is listed; `fresh`:
   * a new folder at that name (a watch left from a folder deleted there watches nothing now).
   */
  add(key: string, folder: string, fresh: boolean): void {
    if (fresh) this.remove(key)
    if (this.watchers.has(key)) return
    if (this.watchers.size >= maxWatchedFolders) {
      this.whole = true
      return
    }
    try {
      // `folder` is the open folder's descriptor path (/proc/self/fd/N): the watch lands on the very
      // folder the walk opened without following a link, whatever its name points to by now.
      const watcher = watch(folder, { persistent: false, encoding: 'buffer' }, () => this.changed(key))
      watcher.on('error', () => this.lost(key))
      watcher.on('close', () => {
        if (this.watchers.get(key) === watcher) this.lost(key)
      })
      this.watchers.set(key, watcher)
    } catch {
      // ENOSPC (max_user_watches), EACCES: this folder cannot be watched, so no walk may trust the set.
      this.whole = true
    }
  }

  /** Stops watching a folder that is gone (and everything below it). */
  remove(key: string): void {
    for (const [watched, watcher] of this.watchers) {
      if (watched === key || key === '' || watched.startsWith(`${key}/`)) {
        this.watchers.delete(watched)
        watcher.close()
      }
    }
  }

  /**
   * The folders changed since the last `take` (and forgets them), or `whole` when the set cannot be
   * trusted; the caller then walks everything and calls `trusted()` once every folder it saw is watched.
   */
  take(): { whole: true } | { whole: false; folders: Set<string> } {
    const flooded = eventsOfAll - this.allAtTake > maxEventsBetweenWalks
    const folders = this.dirty
    // From here on, what changes is the next walk's: taken before this walk, never dropped after it.
    this.dirty = new Set()
    this.allAtTake = eventsOfAll
    this.own = 0
    if (this.whole || flooded) {
      this.whole = true
      return { whole: true }
    }
    return { whole: false, folders }
  }

  /** A whole walk read and watched every folder it saw: from now on the set is trusted. */
  trusted(): void {
    this.whole = this.watchers.size >= maxWatchedFolders
  }

  /** Whether this folder has a watch (a walk goes down into folders that have none yet). */
  watching(key: string): boolean {
    return this.watchers.has(key)
  }

  /** Whether anything changed since the last `take` (or the set cannot be trusted). */
  changedSinceTake(): boolean {
    return this.whole || this.dirty.size > 0 || eventsOfAll - this.allAtTake > maxEventsBetweenWalks
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close()
    this.watchers.clear()
    this.whole = true
  }

  private changed(key: string): void {
    eventsOfAll += 1
    this.dirty.add(key)
    // A flood (a sandboxed loop renaming folders 100 000 times a second) would keep the console's
    // event loop busy reading events nobody needs: past the bound the watches are closed, and the
    // next walk is a whole one that arms them again. What a flood costs is then bounded per walk.
    if (++this.own > maxEventsBetweenWalks) this.close()
  }

  private lost(key: string): void {
    this.watchers.delete(key)
    this.whole = true
  }
}

/** Lets inotify events already queued by the kernel reach their watchers (a loop turn or two) before a walk takes the set. */
export async function drainEvents(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise((resume) => setImmediate(resume))
}
