import { closeSync, constants, fstatSync, openSync, writeSync } from 'node:fs'
import { descriptorPath, giveTo, openDirectoryNoFollow, type SandboxIdentity } from '../core'

/** One line of `<workspace>/.exec_history` (SPEC §6.2): how a call ended, never its input, output or secrets. */
export type ExecHistoryLine = {
  callId: string
  tool: string
  status: string
  startedAt: string
  finishedAt: string | null
  durationMs: number | null
  exitCode: number | null
  errorCode: string | null
}

/** The file's name inside an agent's workspace. */
export const execHistoryFileName = '.exec_history'

/** Whether a line was appended, and if not, why (for a diagnostic; the call itself never fails over it). */
export type ExecHistoryAppend = { appended: true } | { appended: false; reason: string }

const appendFlags = constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK

/**
 * Appends one JSON line to `<workspace>/.exec_history`. The workspace is writable by sandboxed
 * code, so nothing here goes through a path it could redirect: the workspace is opened without
 * following a link on any component, and the file is opened through that descriptor with
 * O_NOFOLLOW (a symlink is refused by the kernel) and O_NONBLOCK (a FIFO cannot make Airlock wait).
 * A file that is not regular or has more than one hard link is left alone. A new file is created
 * exclusively and given to the sandbox identity, so the agent can read it.
 */
export function appendExecHistoryLine(workspace: string, line: ExecHistoryLine, owner: SandboxIdentity): ExecHistoryAppend {
  let dirFd: number
  try {
    dirFd = openDirectoryNoFollow(workspace)
  } catch (error) {
    return { appended: false, reason: `the workspace ${workspace} cannot be opened without following links (${describe(error)})` }
  }
  try {
    const fd = openForAppend(dirFd, owner)
    try {
      const stat = fstatSync(fd)
      if (!stat.isFile()) return { appended: false, reason: `${workspace}/${execHistoryFileName} is not a regular file; it was left alone` }
      if (stat.nlink !== 1) return { appended: false, reason: `${workspace}/${execHistoryFileName} has ${stat.nlink} hard links; it was left alone` }
      const bytes = Buffer.from(`${JSON.stringify(line)}\n`)
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written)
      return { appended: true }
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP')
      return { appended: false, reason: `${workspace}/${execHistoryFileName} is a symbolic link; Airlock does not follow links the workspace can plant` }
    if (code === 'ENXIO') return { appended: false, reason: `${workspace}/${execHistoryFileName} is a FIFO; it was left alone` }
    return { appended: false, reason: `${workspace}/${execHistoryFileName} could not be appended to (${describe(error)})` }
  } finally {
    closeSync(dirFd)
  }
}

/** Opens the file for appending: created exclusively (and handed to the sandbox) when absent. */
function openForAppend(dirFd: number, owner: SandboxIdentity): number {
  const path = `${descriptorPath(dirFd)}/${execHistoryFileName}`
  try {
    const fd = openSync(path, appendFlags | constants.O_CREAT | constants.O_EXCL, 0o644)
    try {
      giveTo(fd, owner)
    } catch (error) {
      closeSync(fd)
      throw error
    }
    return fd
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  return openSync(path, appendFlags)
}

function describe(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error))
}
