import { defineCommand } from '../command'
import { CliError, UsageError } from '../cli-error'
import type { AuditVerification } from '../../console/history-service'
import { withHistory } from './history'

/**
 * `airlock audit verify` (SPEC §8.1, §10): verifies the tamper-evident record of the home: the
 * history hash chain (every ended row and log file), the audit ledger (every call from its start,
 * every approval's request and decision, every audit event), and the ledger's head anchored in the
 * settings and `<home>/audit-anchor.json`. Intact: exit 0, `chain ok: N rows`, `ledger ok: M
 * entries`, `head: <seq> <hash>`, and the head becomes the new anchor. Broken: exit 1 and one line
 * naming what broke first and why. `--json` prints the whole result instead.
 *
 * The anchor detects a rewrite by anyone who cannot also rewrite the anchor file; the strong check
 * is to copy the printed head somewhere the database's writers cannot reach and give it back later
 * (`--head SEQ:HASH`): the ledger must still hold that entry.
 */
export const auditCommand = defineCommand({
  name: 'audit',
  usage: 'airlock audit verify [--head SEQ:HASH] [--json] [--home DIR]',
  options: { head: 'text' },
  async run({ options, positionals }, io) {
    const [action, ...rest] = positionals
    if (action !== 'verify')
      throw new UsageError(action === undefined ? 'audit needs verify' : `unknown audit action ${JSON.stringify(action)} (audit takes verify)`)
    if (rest.length > 0) throw new UsageError(`audit verify takes no arguments, got ${rest[0]}`)
    const kept = options.head === undefined ? undefined : /^(\d{1,15})[: ]([0-9a-f]{64})$/.exec(options.head)
    if (kept === null) throw new UsageError(`--head must be SEQ:HASH from a head: line (e.g. 42:<64 hex digits>), got ${JSON.stringify(options.head)}`)
    const result = await withHistory(options.home, (history) => history.audit(kept ? { kept: { seq: Number(kept[1]), hash: kept[2]! } } : {}))
    if (options.json) io.out(JSON.stringify(jsonOf(result), null, 2))
    if (result.ok) {
      if (result.anchorError) io.err(`airlock: the head was verified but could not be anchored: ${result.anchorError}`)
      if (options.json) return 0
      io.out(`chain ok: ${result.rows} rows`)
      io.out(`ledger ok: ${result.entries} entries`)
      io.out(result.head === null ? 'head: none (nothing recorded yet)' : `head: ${result.head.seq} ${result.head.hash}`)
      const newest = result.matched.reduce<(typeof result.matched)[number] | undefined>(
        (best, anchor) => (best === undefined || anchor.seq > best.seq ? anchor : best),
        undefined
      )
      io.out(
        newest === undefined ? 'anchor: none before this run' : `anchor ok: the chain still holds the head anchored at entry ${newest.seq} on ${newest.at}`
      )
      return 0
    }
    if (result.failed === 'history') {
      const at = result.brokenAt!
      throw new CliError('chain_broken', `chain broken at seq ${at.seq}${at.id === null ? '' : ` (call ${at.id})`}: ${result.reason}`)
    }
    if (result.failed === 'ledger') throw new CliError('chain_broken', `audit ledger broken: ${result.reason}`)
    const head = result.head === null ? 'none' : `${result.head.seq} ${result.head.hash}`
    throw new CliError('chain_broken', `audit anchor broken: ${result.reason} (head now: ${head})`)
  }
})

/** The `--json` document: `head` stays the history chain's head hash (as before the ledger); the ledger and anchor are added. */
function jsonOf(result: AuditVerification): Record<string, unknown> {
  const ledger = { entries: result.entries, head: result.head }
  if (!result.ok)
    return { ok: false, failed: result.failed, rows: result.rows, ...(result.brokenAt ? { brokenAt: result.brokenAt } : {}), reason: result.reason, ledger }
  const anchor = {
    matched: result.matched,
    ...(result.anchored ? { anchored: result.anchored } : {}),
    ...(result.anchorError ? { error: result.anchorError } : {})
  }
  return { ok: true, rows: result.rows, head: result.historyHead, ledger, anchor }
}
