import { randomBytes } from 'node:crypto'
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fsyncSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  writeSync,
  type Stats
} from 'node:fs'
import { descendFolders, descriptorPath, type SandboxIdentity } from '../../core'
import type { EntryState } from '../../store'
import type { ContentStore } from './content-store'

/** One entry to bring to a state: `to` null removes it. */
export type ApplyStep = { path: Buffer; to: EntryState | null }

/** A step that could not be done, with the reason (the path shown as text). */
export type ApplyFailure = { path: string; reason: string }

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

/** A path's components (bytes between `/`). */
export const split = (path: Buffer): Buffer[] => {
  const parts: Buffer[] = []
  let start = 0
  for (let i = 0; i <= path.length; i++) {
    if (i === path.length || path[i] === 0x2f) {
      if (i > start) parts.push(path.subarray(start, i))
      start = i + 1
    }
  }
  return parts
}

const at = (dirFd: number, name: Buffer) => Buffer.concat([Buffer.from(`${descriptorPath(dirFd)}/`), name])

/**
 * Brings workspace entries to the states a checkpoint recorded (a revert or a restore), from the
 * open root `rootFd`: removals first, deepest first; then folders, files and links, shallowest
 * first. Every parent is opened below the root one component at a time with O_NOFOLLOW, so a
 * folder the agent swapped for a link to outside stops the step (reported, never followed); a file
 * is written beside its name (exclusive, no-follow) and renamed over it, so a link planted at the
 * name is replaced, not written through. New entries are given to the sandbox identity when
 * sandboxes run as their own uid. Nothing here runs a program. Returns what could not be done.
 */
export function applySteps(rootFd: number, steps: readonly ApplyStep[], store: ContentStore, owner: SandboxIdentity): ApplyFailure[] {
  const failures: ApplyFailure[] = []
  const depth = (step: ApplyStep) => split(step.path).length
  // An entry in the way of a creation (a folder where a file goes, a link where a folder goes) is taken away by the creation itself.
  const removals = steps.filter((s) => s.to === null).sort((a, b) => depth(b) - depth(a))
  const creations = steps.filter((s) => s.to !== null).sort((a, b) => depth(a) - depth(b))
  const attempt = (step: ApplyStep, work: (dirFd: number, name: Buffer) => void) => {
    const parts = split(step.path)
    const name = parts.pop()
    if (!name) return
    let dirFd: number | undefined
    try {
      dirFd = openParent(rootFd, parts, step.to !== null, owner)
      if (dirFd === undefined) return
      work(dirFd, name)
    } catch (error) {
      failures.push({ path: step.path.toString('utf8'), reason: reasonOf(error) })
    } finally {
      if (dirFd !== undefined) closeSync(dirFd)
    }
  }
  for (const step of removals) {
    attempt(step, (dirFd, name) => {
      const stat = lstatIf(at(dirFd, name))
      if (!stat) return
      if (stat.isDirectory()) rmdirSync(at(dirFd, name))
      else unlinkSync(at(dirFd, name))
    })
  }
  for (const step of creations) {
    const to = step.to as EntryState
    attempt(step, (dirFd, name) => {
      if (to.kind === 'dir') {
        const stat = lstatIf(at(dirFd, name))
        if (stat && !stat.isDirectory()) unlinkSync(at(dirFd, name))
        if (!stat?.isDirectory()) makeFolder(dirFd, name, owner)
        settleFolder(dirFd, name, to)
        return
      }
      if (to.kind === 'other' || !to.kept || to.hash === null)
        throw new Error(`its content was not kept (${to.kind === 'other' ? 'not a file, folder or link' : 'over the size cap or changing while recorded'})`)
      const content = store.read(to.hash)
      const temp = Buffer.from(`.airlock-restore-${randomBytes(8).toString('hex')}`)
      if (to.kind === 'link') {
        symlinkSync(content, at(dirFd, temp))
        const who = ownerOf(to, owner)
        if (who) lchownSync(at(dirFd, temp), who.uid, who.gid)
      } else {
        const fd = openSync(at(dirFd, temp), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
        try {
          const who = ownerOf(to, owner)
          if (who) fchownSync(fd, who.uid, who.gid)
          fchmodSync(fd, restoredMode(to.mode))
          for (let written = 0; written < content.length; ) written += writeSync(fd, content, written)
          fsyncSync(fd)
        } finally {
          closeSync(fd)
        }
      }
      try {
        const stat = lstatIf(at(dirFd, name))
        if (stat?.isDirectory()) rmdirSync(at(dirFd, name))
        renameSync(at(dirFd, temp), at(dirFd, name))
      } catch (error) {
        try {
          unlinkSync(at(dirFd, temp))
        } catch {
          // Renamed already, or never made.
        }
        throw error
      }
    })
  }
  return failures
}

/**
 * Opens a folder below the root by its components, never through a link (a link on the way throws);
 * creates missing folders when `create` (given to `owner`), else undefined when one is missing.
 */
export function openParent(rootFd: number, parts: readonly Buffer[], create: boolean, owner: SandboxIdentity): number | undefined {
  return descendFolders(openSync(`${descriptorPath(rootFd)}/.`, directoryFlags), parts, (fd, part) => {
    const path = at(fd, part)
    const stat = lstatIf(path)
    if (!stat) {
      if (!create) return undefined
      makeFolder(fd, part, owner)
    } else if (stat.isSymbolicLink()) {
      throw new Error(`${part.toString('utf8')} on the way is now a symbolic link; Airlock does not follow links the workspace can plant`)
    } else if (!stat.isDirectory()) {
      throw new Error(`${part.toString('utf8')} on the way is no longer a folder`)
    }
    return openSync(path, directoryFlags)
  })
}

function makeFolder(dirFd: number, name: Buffer, owner: SandboxIdentity): void {
  mkdirSync(at(dirFd, name), { mode: 0o755 })
  if (!owner.dedicated) return
  const fd = openSync(at(dirFd, name), directoryFlags)
  try {
    fchownSync(fd, owner.uid, owner.gid)
  } finally {
    closeSync(fd)
  }
}

/** Gives a restored folder its recorded owner and mode. */
function settleFolder(dirFd: number, name: Buffer, to: EntryState): void {
  const fd = openSync(at(dirFd, name), directoryFlags)
  try {
    const who = ownerOf(to, undefined)
    if (who) fchownSync(fd, who.uid, who.gid)
    fchmodSync(fd, restoredMode(to.mode))
  } finally {
    closeSync(fd)
  }
}

/**
 * Who a restored entry belongs to: the owner recorded with it (a root-owned 0600 file the operator
 * kept in the workspace comes back root's, not the sandbox's) when Airlock runs as root and can
 * give it; else the sandbox identity for a new entry (`fallback`), or nobody to change to.
 */
function ownerOf(state: EntryState, fallback: SandboxIdentity | undefined): { uid: number; gid: number } | undefined {
  if (process.getuid?.() === 0 && state.uid >= 0 && state.gid >= 0) return { uid: state.uid, gid: state.gid }
  return fallback?.dedicated ? { uid: fallback.uid, gid: fallback.gid } : undefined
}

/** A restored entry's mode, without set-user-ID and set-group-ID: content from a workspace never comes back privileged. */
const restoredMode = (mode: number) => mode & 0o1777

function lstatIf(path: Buffer): Stats | undefined {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOTEMPTY') return 'the folder holds files that were not part of this change'
  if (code === 'ELOOP') return 'a symbolic link is on the way; not followed'
  return (error as Error).message
}
