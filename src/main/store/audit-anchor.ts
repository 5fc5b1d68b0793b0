import { closeSync, constants, fstatSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import type { LedgerHead } from './audit-ledger'
import { SettingsRepository } from './settings-repository'

/**
 * The anchor of the audit ledger: its head (seq and hash) recorded outside the chain, in two
 * places: the settings table (`audit.anchor`) and `<home>/audit-anchor.json` (0600, owned by the
 * operator, beside the database and outside every workspace; sandboxes cannot reach the home).
 * A later chain must still hold the anchored entry at its seq: a ledger cut before it, or rewritten
 * from an entry before it (recomputing every hash after an edit), no longer does.
 *
 * What it proves: such a rewrite by anyone who does not also rewrite the anchor file (the settings
 * copy sits in the same database, so it only catches careless edits). Whoever can write both can
 * forge it; the strong check is the head `audit verify` prints, copied somewhere they cannot write.
 */

/** An anchored head and when it was recorded. */
export type AuditAnchor = LedgerHead & { at: string }

/** Where an anchor came from: the anchor file, the settings copy, or a head the operator kept and gave back. */
export type AnchorSource = 'file' | 'settings' | 'operator'

/** The settings key holding the database's copy of the anchor. */
export const anchorSettingKey = 'audit.anchor'

/** The anchor file's name under the home. */
export const anchorFileName = 'audit-anchor.json'

const anchorSchema = z.object({ seq: z.number().int().min(1), hash: z.string().regex(/^[0-9a-f]{64}$/), at: z.string() })
const maxAnchorBytes = 4096

/** The anchors on record: each with its source, or the reason it cannot be trusted. */
export type AnchorReading = { source: AnchorSource; anchor?: AuditAnchor; problem?: string }

/** Reads both anchors, the file's first (either may be absent). A file that is there but cannot be trusted is a problem, not an absence. */
export function readAnchors(db: Database, file: string | undefined): AnchorReading[] {
  const readings: AnchorReading[] = []
  const setting = new SettingsRepository(db).read(anchorSettingKey)
  const stored = anchorSchema.safeParse(setting)
  if (file !== undefined) {
    const onFile = readAnchorFile(file)
    if (onFile) readings.push({ source: 'file', ...onFile })
    else if (stored.success) {
      readings.push({
        source: 'file',
        problem: `${file} is missing, but the database records a head anchored at entry ${stored.data.seq}: the file was deleted (if you moved this database here yourself, copy its ${anchorFileName} along)`
      })
    }
  }
  if (stored.success) readings.push({ source: 'settings', anchor: stored.data })
  else if (setting !== undefined)
    readings.push({ source: 'settings', problem: `the setting ${anchorSettingKey} is not an anchor: it was changed outside Airlock` })
  return readings
}

/**
 * Why the ledger no longer contains an anchored head, or undefined when it does: the entry at the
 * anchored seq must exist and have the anchored hash.
 */
export function anchorBreak(db: Database, anchor: AuditAnchor, source: AnchorSource, file?: string): string | undefined {
  const where = source === 'file' ? (file ?? anchorFileName) : source === 'settings' ? `the setting ${anchorSettingKey}` : 'the head you gave'
  const at = db.prepare('select hash from ledger where seq = ?').pluck().get(anchor.seq) as string | undefined
  if (at === undefined) {
    const last = (db.prepare('select max(seq) from ledger').pluck().get() as number | null) ?? 0
    return `the ledger ends at entry ${last}, before the head anchored at entry ${anchor.seq}${when(anchor)} (${where}): entries were removed`
  }
  if (at !== anchor.hash)
    return `ledger entry ${anchor.seq} is not the head anchored there${when(anchor)} (${where}): the chain was rewritten from that entry or before it`
  return undefined
}

const when = (anchor: AuditAnchor) => (anchor.at === '' ? '' : ` on ${anchor.at}`)

/** Records `head` as the anchor in the settings table and in `file` (replaced atomically, mode 0600). */
export function writeAnchors(db: Database, file: string | undefined, head: LedgerHead, now = new Date()): AuditAnchor {
  const anchor: AuditAnchor = { seq: head.seq, hash: head.hash, at: now.toISOString() }
  new SettingsRepository(db).write(anchorSettingKey, anchor)
  if (file !== undefined) {
    const temporary = `${file}.${process.pid}.tmp`
    try {
      writeFileSync(temporary, `${JSON.stringify(anchor, null, 2)}\n`, { mode: 0o600, flag: 'wx' })
      // A rename replaces the name itself: a symlink planted at `file` is replaced, never followed.
      renameSync(temporary, file)
    } catch (error) {
      rmSync(temporary, { force: true })
      throw error
    }
  }
  return anchor
}

/** The anchor in `file`, undefined when there is none; a file that is not a trustworthy anchor gives its problem. */
function readAnchorFile(file: string): { anchor?: AuditAnchor; problem?: string } | undefined {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    return { problem: `${file} cannot be read (${code === 'ELOOP' ? 'it is a symbolic link' : (code ?? String(error))})` }
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) return { problem: `${file} is not a regular file` }
    if (stat.uid !== 0 && stat.uid !== process.getuid?.())
      return { problem: `${file} is owned by uid ${stat.uid}, not by this operator or root: it proves nothing` }
    if ((stat.mode & 0o022) !== 0) return { problem: `${file} is writable by others (mode ${(stat.mode & 0o777).toString(8)}): it proves nothing` }
    const buffer = Buffer.alloc(maxAnchorBytes + 1)
    const length = readSync(fd, buffer, 0, buffer.length, 0)
    let parsed: unknown
    try {
      parsed = JSON.parse(buffer.subarray(0, length).toString('utf8'))
    } catch {
      parsed = undefined
    }
    const anchor = anchorSchema.safeParse(parsed)
    return anchor.success && length <= maxAnchorBytes
      ? { anchor: anchor.data }
      : { problem: `${file} is not an anchor ({seq, hash, at}): it was changed outside Airlock` }
  } finally {
    closeSync(fd)
  }
}
