import { statfs } from 'node:fs/promises'
import type { RunStop } from '../../core'
import { entryLimit, quotaRefusal, workspaceUsage, type WorkspaceUsage } from './workspace-quota'

/** How often a running call's file system is looked at. */
export const quotaPollMs = 100

/** The last exact measurement of each workspace (a watch starts from it; the after-run check refreshes it). */
const measured = new Map<string, WorkspaceUsage>()

/** Records a workspace's measured use, for the next watch to start from. */
export function rememberUsage(workspace: string, usage: WorkspaceUsage | undefined): void {
  if (usage) measured.set(workspace, usage)
}

/**
 * Holds a workspace's disk quota (`limits.diskMb`: bytes, and entries — see `entryLimit`) while
 * a command or code run goes, instead of finding it broken afterwards: every `quotaPollMs` the
 * file system holding the workspace is asked (`statfs`: one system call) how many blocks and
 * inodes it lost since the run began. That loss bounds what the run can have written (anything
 * else writing on the same file system only adds to it), so while the workspace's last measured
 * use plus the loss stays within the quota nothing more is done. Past it, the workspace is walked
 * exactly (`workspaceUsage`); over the quota (or, in a workspace already over it when the run began, past that start), the run is stopped with `workspace_file.quota_exceeded`
 * (its output kept), else the walk becomes the new starting point.
 *
 * What it holds: a run can overshoot by what it writes in one poll plus one walk (a flood of
 * 400 MiB in 0.6 s stops within a few hundred MB instead of finishing), never without bound.
 * Where the workspace is on another machine (a remote Docker engine), nothing here can see it.
 */
export function watchQuota(workspace: string, limitMb: number, stop: (reason: RunStop) => void): () => void {
  const limitBytes = limitMb * 1024 * 1024
  const limitEntries = entryLimit(limitMb)
  let ended = false
  let busy = false
  let start: { bytes: number; entries: number; freeBytes: number; freeInodes: number } | undefined
  // A workspace already over its quota when the run began (a flood stopped mid-way) may be cleaned
  // up by this run: it is stopped only when it grows past where it started, never for being over.
  let ceiling = { bytes: limitBytes, entries: limitEntries }

  const look = async () => {
    const fs = await statfs(workspace)
    return { freeBytes: fs.bfree * fs.bsize, freeInodes: fs.ffree }
  }
  const measure = async () => {
    const usage = await workspaceUsage(workspace)
    measured.set(workspace, usage)
    return usage
  }
  const tick = async () => {
    if (ended || busy) return
    busy = true
    try {
      if (!start) {
        // A workspace remembered over its quota is measured again: its ceiling must be where it really starts.
        const remembered = measured.get(workspace)
        const base = remembered && remembered.bytes <= limitBytes && remembered.entries <= limitEntries ? remembered : await measure()
        start = { bytes: base.bytes, entries: base.entries, ...(await look()) }
        ceiling = { bytes: Math.max(limitBytes, base.bytes), entries: Math.max(limitEntries, base.entries) }
        return
      }
      const now = await look()
      const grownBytes = start.freeBytes - now.freeBytes
      const grownEntries = start.freeInodes - now.freeInodes
      if (start.bytes + grownBytes <= ceiling.bytes && start.entries + grownEntries <= ceiling.entries) return
      const usage = await measure()
      if (ended) return
      const refusal = usage.bytes > ceiling.bytes || usage.entries > ceiling.entries ? quotaRefusal(usage, limitMb, 0) : undefined
      if (refusal) {
        ended = true
        stop({ code: refusal.code, message: `${refusal.message} The run was stopped while it wrote (its output so far is kept).` })
        return
      }
      start = { bytes: usage.bytes, entries: usage.entries, ...(await look()) }
    } catch {
      // A workspace that cannot be looked at (removed meanwhile) is the after-run check's to report.
    } finally {
      busy = false
    }
  }
  void tick()
  const timer = setInterval(() => void tick(), quotaPollMs)
  timer.unref()
  return () => {
    ended = true
    clearInterval(timer)
  }
}
