import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { createConsoleToken } from './request-guard'

/** The file under the home that keeps the web console's token across restarts (owner-only). */
export function consoleTokenFile(home: string): string {
  return join(home, 'console-token')
}

const tokenShape = /^[A-Za-z0-9_-]{32}$/

/**
 * The web console's token, kept in `<home>/console-token` (0600) so open tabs and bookmarks keep
 * working across restarts (the session cookie is keyed by the token, see request-guard.ts).
 * Made on first use; `rotate` makes a new one, which ends every open console session.
 *
 * Bad files are never trusted and never followed: a symbolic link, something other than a
 * regular file of this user, a file others can read or write (the token may have leaked), or one
 * that does not hold a token is replaced by a new token; `notes` says what was replaced and why.
 * Nothing else in the home is touched.
 */
export function loadConsoleToken(home: string, options: { rotate?: boolean } = {}): { token: string; notes: string[] } {
  const file = consoleTokenFile(home)
  const notes: string[] = []
  if (options.rotate) {
    if (exists(file)) notes.push('made a new console token (--rotate-token): consoles opened with the old one must open the new URL')
    return { token: replace(file), notes }
  }
  const problem = problemWith(file)
  if (problem === 'missing') return { token: replace(file), notes }
  if (typeof problem === 'string') {
    notes.push(`${file} ${problem}: it was replaced with a new console token (open the new URL)`)
    return { token: replace(file), notes }
  }
  return { token: problem.token, notes }
}

function problemWith(file: string): 'missing' | string | { token: string } {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return 'missing'
    return code === 'ELOOP' ? 'was a symbolic link' : `could not be opened (${code})`
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) return 'was not a regular file'
    if (stat.uid !== process.getuid?.()) return 'belonged to another user'
    if ((stat.mode & 0o077) !== 0) return `was readable or writable by others (mode ${(stat.mode & 0o777).toString(8)})`
    const token = readFileSync(fd, 'utf8').trim()
    return tokenShape.test(token) ? { token } : 'did not hold a console token'
  } finally {
    closeSync(fd)
  }
}

/** Writes a new token to a new owner-only file (what was at the path, link or not, is removed, never followed). */
function replace(file: string): string {
  if (isDirectory(file)) throw new Error(`${file} is a folder, not Airlock's console token: move it away and start again`)
  rmSync(file, { force: true })
  const token = createConsoleToken()
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
  try {
    writeSync(fd, `${token}\n`)
  } finally {
    closeSync(fd)
  }
  return token
}

function exists(file: string): boolean {
  try {
    lstatSync(file)
    return true
  } catch {
    return false
  }
}

function isDirectory(file: string): boolean {
  try {
    return lstatSync(file).isDirectory()
  } catch {
    return false
  }
}
