import { isUtf8 } from 'node:buffer'
import { closeSync, constants, openSync, type Dirent } from 'node:fs'
import { lstat, opendir } from 'node:fs/promises'
import type { WorkspaceChange } from '@shared/ipc/workspace'
import { descriptorPath } from '../core'
import { isoTime, O_PATH } from './workspace-entries'

/**
 * How far `recent` looks: entries looked at, folder depth, and time. A workspace is written by
 * sandboxed code, so it can hold a million files or a tree a thousand levels deep; the walk stops
 * at the first bound and says it was not complete.
 */
export const recentBounds = { maxEntries: 20_000, maxDepth: 24, maxMs: 2_000 } as const

/** Names the walk does not enter: version-control internals (noise) anywhere, and the host's own records at the root. */
const skippedAnywhere = new Set(['.git'])
const skippedAtRoot = new Set(['.airlock', '.exec_history'])

/** What a bounded walk found: the newest files, how many entries it looked at, and whether it saw everything. */
export type RecentWalk = { changes: WorkspaceChange[]; scanned: number; complete: boolean }

/**
 * The most recently modified regular files below the open workspace root `rootFd`, newest first.
 * Breadth first (the top levels are seen even when a deep tree exhausts the bounds); every folder
 * is reopened from the root one name at a time with O_NOFOLLOW, so a folder swapped for a link is
 * skipped, never followed; only lstat is used on files (nothing is opened, so FIFOs cannot block).
 */
export async function recentChanges(
  rootFd: number,
  limit: number,
  bounds: { maxEntries: number; maxDepth: number; maxMs: number } = recentBounds
): Promise<RecentWalk> {
  const deadline = performance.now() + bounds.maxMs
  const files: WorkspaceChange[] = []
  const queue: Buffer[][] = [[]]
  let scanned = 0
  // `cut`: a bound on entries or time ended the walk; `deep`: folders below maxDepth were not entered (the rest still is).
  let cut = false
  let deep = false
  while (queue.length > 0 && !cut) {
    if (performance.now() > deadline) {
      cut = true
      break
    }
    const folder = queue.shift() as Buffer[]
    const fd = reopenBelow(rootFd, folder)
    if (fd === undefined) continue
    try {
      const dir = await opendir(descriptorPath(fd), { encoding: 'buffer' as BufferEncoding, bufferSize: 256 })
      try {
        for await (const entry of dir as AsyncIterable<Dirent<Buffer>>) {
          if (scanned >= bounds.maxEntries || performance.now() > deadline) {
            cut = true
            break
          }
          scanned += 1
          const name = entry.name
          const text = name.toString('utf8')
          if (skippedAnywhere.has(text) || (folder.length === 0 && skippedAtRoot.has(text))) continue
          if (entry.isDirectory()) {
            if (folder.length + 1 > bounds.maxDepth) deep = true
            else queue.push([...folder, name])
            continue
          }
          // Only UTF-8 names: any other byte name is listed in the tree as unreadable, never offered to open.
          if (!entry.isFile() || !isUtf8(name)) continue
          const stat = await lstat(Buffer.concat([Buffer.from(`${descriptorPath(fd)}/`), name])).catch(() => undefined)
          if (!stat?.isFile()) continue
          files.push({ path: [...folder, name].map((part) => part.toString('utf8')).join('/'), bytes: stat.size, modifiedAt: isoTime(stat.mtimeMs) })
        }
      } finally {
        // A `for await` that ran to its end closed the folder already.
        await dir.close().catch(() => undefined)
      }
    } finally {
      closeSync(fd)
    }
  }
  const complete = !cut && !deep && queue.length === 0
  files.sort((a, b) => Date.parse(b.modifiedAt) - Date.parse(a.modifiedAt) || a.path.localeCompare(b.path))
  return { changes: files.slice(0, limit), scanned, complete }
}

/** Opens `components` below the root again, each step no-follow; undefined when one is no longer a folder. */
function reopenBelow(rootFd: number, components: readonly Buffer[]): number | undefined {
  let fd: number | undefined = openSync(`${descriptorPath(rootFd)}/.`, O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW)
  for (const part of components) {
    let next: number | undefined
    try {
      next = openSync(Buffer.concat([Buffer.from(`${descriptorPath(fd)}/`), part]), O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW)
    } catch {
      next = undefined
    }
    closeSync(fd)
    fd = next
    if (fd === undefined) return undefined
  }
  return fd
}
