import { constants, fstatSync, lstat, type Stats } from 'node:fs'
import { open, readdir } from 'node:fs/promises'
import { promisify } from 'node:util'
import { descriptorPath } from '../../core/sandbox'
import { WorkspaceFileError } from './workspace-file-error'
import { closeWorkspace, openWorkspace } from './workspace-resolver'

/**
 * A workspace's disk use (SPEC §6.1 `limits.diskMb`): the blocks allocated to everything under
 * its root (`du`, not apparent sizes: a sparse file costs what it occupies), each inode once
 * however many links it has, `.airlock/` included (execution areas are the agent's runs). The walk
 * goes through directory descriptors and never follows a link, so a tree the agent reshapes while
 * it is measured cannot send it outside. It is bounded: past `maxEntries` entries or `maxDepth`
 * levels it stops and says `complete: false` (the bytes are then a lower bound).
 */
export type WorkspaceUsage = { bytes: number; entries: number; complete: boolean }

/** Bounds of one usage walk. */
export const usageBounds = { maxEntries: 1_000_000, maxDepth: 256 } as const

const lstatBuffer = promisify(lstat) as (path: Buffer) => Promise<Stats>
const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW
const MiB = 1024 * 1024
const statBatch = 64

/** Measures a workspace's disk use (see `WorkspaceUsage`); never blocks the main thread on the walk. */
export async function workspaceUsage(workspace: string, options: { signal?: AbortSignal } = {}): Promise<WorkspaceUsage> {
  const root = openWorkspace(workspace)
  const seen = new Set<string>()
  const usage: WorkspaceUsage = { bytes: 0, entries: 0, complete: true }
  const count = (stat: Stats) => {
    if (stat.nlink > 1 && !stat.isDirectory()) {
      const key = `${stat.dev}:${stat.ino}`
      if (seen.has(key)) return
      seen.add(key)
    }
    usage.bytes += stat.blocks * 512
  }
  const walk = async (fd: number, depth: number): Promise<void> => {
    options.signal?.throwIfAborted()
    const names = await readdir(descriptorPath(fd), { encoding: 'buffer' }).catch(() => [] as Buffer[])
    if (usage.entries + names.length > usageBounds.maxEntries) usage.complete = false
    const kept = names.slice(0, Math.max(0, usageBounds.maxEntries - usage.entries))
    usage.entries += kept.length
    const folders: Buffer[] = []
    // A batch of lstat calls at a time: the thread pool works on them together.
    for (let start = 0; start < kept.length; start += statBatch) {
      const batch = kept.slice(start, start + statBatch).map((name) => Buffer.concat([Buffer.from(`${descriptorPath(fd)}/`), name]))
      const stats = await Promise.all(batch.map((path) => lstatBuffer(path).catch(() => undefined)))
      for (const [index, stat] of stats.entries()) {
        if (!stat) continue
        count(stat)
        if (stat.isDirectory()) folders.push(batch[index] as Buffer)
      }
    }
    for (const path of folders) {
      if (depth >= usageBounds.maxDepth) {
        usage.complete = false
        break
      }
      // Opened no-follow: a folder swapped for a link since the lstat is skipped, never followed.
      const child = await open(path, directoryFlags).catch(() => undefined)
      if (!child) continue
      try {
        await walk(child.fd, depth + 1)
      } finally {
        await child.close()
      }
    }
  }
  try {
    usage.bytes += fstatSync(root.fd).blocks * 512
    await walk(root.fd, 0)
  } finally {
    closeWorkspace(root)
  }
  return usage
}

/**
 * How many entries (files, folders, links) a workspace may hold: 256 per MiB of its disk quota,
 * at least 10 000 (the default 2048 MB allows 524 288). Empty files cost no blocks, so without
 * this a run could fill the file system's inodes (300 000 empty files in a 50 MiB quota).
 */
export function entryLimit(limitMb: number): number {
  return Math.max(10_000, Math.floor(limitMb * 256))
}

/** Why a measured use is over the quota (bytes after adding `extraBytes`, or entries), or undefined. */
export function quotaRefusal(usage: WorkspaceUsage, limitMb: number, extraBytes: number): WorkspaceFileError | undefined {
  const limit = limitMb * MiB
  if (usage.bytes + extraBytes > limit) {
    const used = (usage.bytes / MiB).toFixed(1)
    return new WorkspaceFileError(
      'quota_exceeded',
      `The workspace uses ${used} MiB of its ${limitMb} MiB disk quota${extraBytes > 0 ? `, and this would add ${extraBytes} bytes` : ''}; refused. Delete files, or ask the operator to raise limits.diskMb.`,
      { usedBytes: usage.bytes, extraBytes, limitBytes: limit, complete: usage.complete }
    )
  }
  const entries = entryLimit(limitMb)
  if (usage.entries > entries) {
    return new WorkspaceFileError(
      'quota_exceeded',
      `The workspace holds ${usage.entries} files and folders, over the ${entries} its ${limitMb} MiB disk quota allows; refused. Delete files, or ask the operator to raise limits.diskMb.`,
      { entries: usage.entries, limitEntries: entries, complete: usage.complete }
    )
  }
  return undefined
}

/**
 * Refuses (`workspace_file.quota_exceeded`) when the workspace would exceed `limitMb` after adding
 * `extraBytes`, or holds more entries than `entryLimit` allows. Call it before a write with the
 * bytes it adds, or after a command with 0 to learn whether it went over (`watchQuota` holds it
 * while the command runs). A negative `extraBytes` (the write frees space) always passes. Returns
 * the usage it measured (undefined when it did not need to measure). Concurrent writers may each
 * pass before either lands: the quota bounds growth per call, it is not a filesystem quota.
 */
export async function assertWithinQuota(
  workspace: string,
  limitMb: number,
  extraBytes: number,
  options: { signal?: AbortSignal } = {}
): Promise<WorkspaceUsage | undefined> {
  if (extraBytes < 0) return undefined
  const usage = await workspaceUsage(workspace, options)
  const refusal = quotaRefusal(usage, limitMb, extraBytes)
  if (refusal) throw refusal
  return usage
}
