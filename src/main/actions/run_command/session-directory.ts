import { randomBytes } from 'node:crypto'
import { realpathSync, statSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'

/**
 * How the working directory persists across the calls of one session (`cd sub`, then a later
 * `pwd` prints `.../sub`). Every sandboxed run is a fresh process, so the shell reports where it
 * ended: the command runs behind an EXIT trap that prints `\n<marker><$PWD><marker>\n` last on
 * stdout, with a marker that is random per call. The report is stripped from the output the agent
 * sees, and the path is accepted only when, resolved on the host, it is a directory inside the
 * workspace and outside Airlock's own `.airlock/`; else the session stays where it was. No report
 * (stdout truncated past the cap, the shell replaced by `exec`, the trap replaced, the run killed)
 * also leaves it where it was, and the result says so. The directory is kept per session, and is
 * made explicit before the policy runs: a call without `cwd` in a session that moved is decided,
 * shown to the operator, batched, matched against rules and recorded as `cwd: <that directory>`
 * (see `ActionSpec.resolveInput`), so `cd .git` in one call and `rm -rf hooks` in the next is
 * judged as `rm -rf hooks` in `.git`.
 */
export class SessionDirectories {
  private readonly bySession = new Map<string, string>()

  /** `kept`: where the directories are also written (the sessions table), so a session resumed after a restart is where it was. */
  constructor(private readonly kept?: SessionDirectoryStore) {}

  /** The session's directory, relative to the workspace ('' is the root). */
  get(sessionId: string): string {
    return this.bySession.get(sessionId) ?? this.kept?.cwd(sessionId) ?? ''
  }

  /** Moves the session to `relativePath` (already checked with `workspaceDirectory`). */
  set(sessionId: string, relativePath: string): void {
    if (this.kept && this.get(sessionId) !== relativePath) this.kept.setCwd(sessionId, relativePath)
    this.bySession.delete(sessionId)
    if (relativePath === '') return
    this.bySession.set(sessionId, relativePath)
    // Sessions that ended in a subdirectory are not told to forget: keep the newest entries only.
    if (this.bySession.size > maxRemembered) this.bySession.delete(this.bySession.keys().next().value!)
  }
}

/** Where sessions' directories are kept beyond the process (the store's sessions table). */
export type SessionDirectoryStore = { cwd(sessionId: string): string; setCwd(sessionId: string, cwd: string): void }

/** How many sessions' directories are remembered (each a short path; the oldest is forgotten first). */
const maxRemembered = 10_000

/** A fresh marker for one call's directory report (random: the output cannot predict it). */
export function cwdMarker(): string {
  return `AIRLOCK_CWD_${randomBytes(16).toString('hex')}`
}

/**
 * The command line the shell runs: the EXIT trap that reports `$PWD`, then the agent's command
 * on the same line (so the shell's line numbers in error messages stay the agent's). The trap
 * keeps the command's exit status.
 */
export function withCwdReport(command: string, marker: string): string {
  return `trap 'airlock_status=$?; printf "\\n%s%s%s\\n" ${marker} "$PWD" ${marker}; exit $airlock_status' EXIT; ${command}`
}

/**
 * Splits a call's stdout into what the command printed and the directory it reported. When the
 * output was truncated, a report cut short by the cap is removed too (nothing of it is the
 * command's); such a report names no directory.
 */
export function takeCwdReport(stdout: string, marker: string, truncated: boolean): { stdout: string; reported?: string } {
  const opening = `\n${marker}`
  const start = stdout.lastIndexOf(opening)
  if (start >= 0) {
    const from = start + opening.length
    const end = stdout.indexOf(marker, from)
    if (end < 0) return { stdout: stdout.slice(0, start) }
    const after = end + marker.length + (stdout[end + marker.length] === '\n' ? 1 : 0)
    return { stdout: stdout.slice(0, start) + stdout.slice(after), reported: stdout.slice(from, end) }
  }
  if (truncated) {
    // The cap fell inside the opening: drop the part of it that made it (at least "\nA").
    for (let length = Math.min(opening.length - 1, stdout.length); length >= 2; length--) {
      if (stdout.endsWith(opening.slice(0, length))) return { stdout: stdout.slice(0, -length) }
    }
  }
  return { stdout }
}

/** A directory inside the workspace, or why a path is not one. */
export type WorkspaceDirectory = { relative: string; absolute: string } | { refused: string }

/**
 * Resolves `path` (absolute, or relative to the workspace root) to a directory inside the
 * workspace: on the real path after every symlink, never inside the host-kept `.airlock/`.
 * `workspace` is the workspace's real path.
 */
export function workspaceDirectory(workspace: string, path: string): WorkspaceDirectory {
  if (path.includes('\0')) return { refused: 'contains NUL' }
  const lexical = resolve(workspace, path)
  if (escapes(relative(workspace, lexical))) return { refused: 'is outside the workspace' }
  let real: string
  try {
    real = realpathSync(lexical)
  } catch {
    return { refused: 'does not exist' }
  }
  const inside = relative(workspace, real)
  if (escapes(inside)) return { refused: 'leads outside the workspace through a symbolic link' }
  if (inside.split(sep)[0] === '.airlock') return { refused: 'is inside .airlock, which Airlock keeps' }
  try {
    if (!statSync(real).isDirectory()) return { refused: 'is not a directory' }
  } catch {
    return { refused: 'does not exist' }
  }
  return { relative: inside, absolute: inside === '' ? workspace : join(workspace, inside) }
}

function escapes(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)
}
