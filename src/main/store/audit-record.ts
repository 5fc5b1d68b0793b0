import type { Database } from 'better-sqlite3'
import { verifyChain } from './action-call-chain'
import { anchorBreak, readAnchors, writeAnchors, type AnchorReading, type AuditAnchor } from './audit-anchor'
import { ledgerHead, type LedgerHead } from './audit-ledger'
import { verifyLedger } from './audit-ledger-verify'

/** Which check found the record broken: the history chain, the ledger, or the anchored head. */
export type AuditFailure = 'history' | 'ledger' | 'anchor'

/** What a verification of the whole record found. */
export type AuditVerification =
  | {
      ok: true
      /** Chained history rows, and the history chain's head hash. */
      rows: number
      historyHead: string
      /** Ledger entries, and the head to anchor (null: nothing recorded yet). */
      entries: number
      head: LedgerHead | null
      /** The anchors the chain was found to contain. */
      matched: AuditAnchor[]
      /** The head now anchored, or why it could not be stored (verification still passed). */
      anchored?: AuditAnchor
      anchorError?: string
    }
  | { ok: false; failed: AuditFailure; rows: number; entries: number; head: LedgerHead | null; brokenAt?: { seq: number; id: string | null }; reason: string }

/**
 * The tamper-evident record of one home (SPEC §10) as a whole: the history chain of ended rows
 * (action-call-chain.ts), the ledger of every call, approval and audit event (audit-ledger.ts), and
 * the anchor of the ledger's head (audit-anchor.ts). Checks run in that order inside one read
 * transaction (one consistent snapshot while a console keeps writing); the first failure is named.
 */
export class AuditRecord {
  constructor(
    private readonly db: Database,
    private readonly logsDir: string,
    /** `<home>/audit-anchor.json`; without it only the settings copy of the anchor is used. */
    readonly anchorFile?: string
  ) {}

  /**
   * Verifies everything; when intact, anchors the head it verified (both places) unless `anchor` is
   * false. `kept`: a head the operator copied from an earlier run, checked like an anchor.
   */
  verify(options: { anchor?: boolean; kept?: LedgerHead } = {}): AuditVerification {
    const result = this.db.transaction((): AuditVerification => {
      const history = verifyChain(this.db, this.logsDir)
      if (!history.ok) return { ok: false, failed: 'history', rows: history.rows, entries: 0, head: null, brokenAt: history.brokenAt, reason: history.reason }
      const ledger = verifyLedger(this.db)
      if (!ledger.ok)
        return {
          ok: false,
          failed: 'ledger',
          rows: history.rows,
          entries: ledger.entries,
          head: null,
          ...(ledger.call ? { brokenAt: ledger.call } : {}),
          reason: ledger.reason
        }
      const matched: AuditAnchor[] = []
      const kept: AnchorReading[] = options.kept ? [{ source: 'operator', anchor: { ...options.kept, at: '' } }] : []
      for (const reading of [...kept, ...readAnchors(this.db, this.anchorFile)]) {
        const reason = reading.problem ?? anchorBreak(this.db, reading.anchor!, reading.source, this.anchorFile)
        if (reason) return { ok: false, failed: 'anchor', rows: history.rows, entries: ledger.entries, head: ledger.head, reason }
        if (reading.source !== 'operator') matched.push(reading.anchor!)
      }
      return { ok: true, rows: history.rows, historyHead: history.head, entries: ledger.entries, head: ledger.head, matched }
    })()
    if (!result.ok || options.anchor === false || result.head === null) return result
    try {
      return { ...result, anchored: writeAnchors(this.db, this.anchorFile, result.head) }
    } catch (error) {
      return { ...result, anchorError: (error as Error).message }
    }
  }

  /**
   * Moves the anchor to the current head, without a full walk (the console does this as it starts
   * and stops): only when the ledger still contains every anchored head. Otherwise the anchors stay
   * as they are, so the next `audit verify` reports the break, and the reason is returned.
   */
  anchorHead(now = new Date()): { anchored: AuditAnchor | null } | { problem: string } {
    return this.db
      .transaction(() => {
        for (const reading of readAnchors(this.db, this.anchorFile)) {
          const problem = reading.problem ?? anchorBreak(this.db, reading.anchor!, reading.source, this.anchorFile)
          if (problem) return { problem }
        }
        const head = ledgerHead(this.db)
        return { anchored: head === null ? null : writeAnchors(this.db, this.anchorFile, head, now) }
      })
      .immediate()
  }
}
