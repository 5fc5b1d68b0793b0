import { randomUUID } from 'node:crypto'
import { chmodSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../test/support/temp-home'
import { hashedColumns } from './action-call-chain'
import { appendLedger, callStartColumns, entryHash, genesisHash, liveDigest, runningDefaults } from './audit-ledger'
import { verifyLedger } from './audit-ledger-verify'
import { openStore, type NewApproval, type Store } from '.'

let dir: ReturnType<typeof makeTempDir>
let store: Store
beforeEach(() => {
  dir = makeTempDir()
  store = openStore(join(dir.path, 'airlock.db'))
  const now = new Date().toISOString()
  store.agents.insert({ id: 'coder', name: 'coder', roleId: null, tokenHash: 'x', enabled: true, profile: {}, createdAt: now, updatedAt: now })
})
afterEach(() => {
  store.close()
  dir.remove()
})

const entries = () => store.db.prepare('select seq, kind, ref from ledger order by seq').all() as { seq: number; kind: string; ref: string }[]
const begin = (callId = randomUUID()) => {
  store.history.begin({
    callId,
    agentId: 'coder',
    sessionId: 's-1',
    tool: 'run_command',
    inputSummary: { command: 'make' },
    startedAt: new Date().toISOString()
  })
  return callId
}
const finish = (callId: string) =>
  store.history.finish({
    callId,
    status: 'success',
    finishedAt: new Date().toISOString(),
    durationMs: 3,
    exitCode: 0,
    stdout: { text: 'ok' },
    artifacts: [],
    lineage: []
  })
const seqOf = (callId: string) => String(store.db.prepare('select seq from action_calls where id = ?').pluck().get(callId))
const approval = (overrides: Partial<NewApproval> = {}): NewApproval => ({
  id: randomUUID(),
  agentId: 'coder',
  sessionId: null,
  tool: 'write_file',
  summary: 'write .env',
  riskFlags: [],
  createdAt: new Date().toISOString(),
  expiresAt: new Date(Date.now() + 60_000).toISOString(),
  kind: 'action',
  reason: 'protected file',
  policyRule: 'ask.protected',
  commands: [],
  preview: null,
  planted: [],
  classification: null,
  proposedRule: null,
  batchKey: null,
  ...overrides
})
const decide = (id: string, decision: 'approve' | 'deny' = 'deny') =>
  store.approvals.decide(id, decision === 'approve' ? 'approved' : 'denied', {
    decision,
    reason: 'because',
    by: 'console',
    decidedAt: new Date().toISOString(),
    delivered: 0
  })

describe('audit ledger: every change appends its step', () => {
  it('a call appends its begin and its end; an approval its request and decision; an event one entry', () => {
    const callId = begin()
    expect(entries()).toEqual([{ seq: 1, kind: 'call.begin', ref: seqOf(callId) }])
    finish(callId)
    const item = approval()
    store.approvals.insert(item)
    store.approvals.join(item.id)
    store.approvals.watch([item.id])
    decide(item.id)
    store.approvals.addDelivered(item.id, 2)
    const event = store.events.append('approval.decided', { approvalId: item.id })
    expect(entries().map((entry) => [entry.kind, entry.ref])).toEqual([
      ['call.begin', seqOf(callId)],
      ['call.end', seqOf(callId)],
      ['approval.request', item.id],
      ['approval.decision', item.id],
      ['event', String(event)]
    ])
    expect(verifyLedger(store.db)).toEqual({ ok: true, entries: 5, head: { seq: 5, hash: expect.stringMatching(/^[0-9a-f]{64}$/) } })
  })

  it('a change that fails appends nothing: a duplicate call, a decision of a decided item, an approval refused by a foreign key', () => {
    const callId = begin()
    expect(() => begin(callId)).toThrow(/already recorded/)
    const item = approval()
    store.approvals.insert(item)
    expect(decide(item.id)).toBe(true)
    expect(decide(item.id, 'approve')).toBe(false)
    expect(() => store.approvals.insert(approval({ agentId: 'nobody' }))).toThrow(/FOREIGN KEY/)
    expect(entries().map((entry) => entry.kind)).toEqual(['call.begin', 'approval.request', 'approval.decision'])
    expect(verifyLedger(store.db).ok).toBe(true)
  })

  it('refuses to append outside the transaction of a change', () => {
    expect(() => appendLedger(store.db, 'event', '1', 'x')).toThrow(/inside the transaction/)
  })

  it('start columns and running defaults together are exactly the hashed columns of a history row', () => {
    expect([...callStartColumns, ...Object.keys(runningDefaults)].sort()).toEqual([...hashedColumns].sort())
  })

  it('start-up recovery ends a running call with its end facts reset, and the end joins the ledger', () => {
    const callId = begin()
    store.db.prepare("update action_calls set stdout = 'planted', exit_code = 0 where id = ?").run(callId)
    expect(verifyLedger(store.db)).toMatchObject({ ok: false, reason: expect.stringMatching(/is running but holds facts it was not started with/) })
    const [row] = store.history.interruptRunning()
    expect(row).toMatchObject({ status: 'interrupted', exitCode: null })
    expect(store.history.get(callId)!.stdout.text).toBeNull()
    expect(entries().map((entry) => entry.kind)).toEqual(['call.begin', 'call.end'])
    expect(verifyLedger(store.db).ok).toBe(true)
    expect(store.history.verify().ok).toBe(true)
  })
})

describe('audit ledger: verification', () => {
  it('an approval whose agent is removed still verifies (SQLite nulls agent_id); an agent changed by hand does not', () => {
    const item = approval()
    store.approvals.insert(item)
    const now = new Date().toISOString()
    store.agents.insert({ id: 'other', name: 'other', roleId: null, tokenHash: 'x', enabled: true, profile: {}, createdAt: now, updatedAt: now })
    store.db.prepare("update approvals set agent_id = 'other' where id = ?").run(item.id)
    expect(verifyLedger(store.db)).toMatchObject({
      ok: false,
      reason: `approval ${item.id}: its agent is not the one that asked (ledger entry 1): the row was changed`
    })
    store.db.prepare("update approvals set agent_id = 'coder' where id = ?").run(item.id)
    expect(store.agents.delete('coder')).toBe(true)
    expect(store.db.prepare('select agent_id from approvals where id = ?').pluck().get(item.id)).toBeNull()
    expect(verifyLedger(store.db).ok).toBe(true)
  })

  it('a second decision appended with a valid link is a step the item cannot have', () => {
    const item = approval()
    store.approvals.insert(item)
    decide(item.id)
    store.db.exec('drop index ledger_step')
    store.db.prepare("update approvals set status = 'approved', decision_json = json_set(decision_json, '$.decision', 'approve') where id = ?").run(item.id)
    store.db.transaction(() => appendLedger(store.db, 'approval.decision', item.id, liveDigest(store.db, 'approval.decision', item.id)!)).immediate()
    expect(verifyLedger(store.db)).toMatchObject({
      ok: false,
      reason: `the ledger records approval.decision of "${item.id}" twice: an entry was added outside Airlock`
    })
  })

  it('names an entry changed, one cut from the middle, and a link that does not follow', () => {
    for (let index = 0; index < 4; index++) store.events.append('settings.changed', { key: `k${index}` })
    const walk = () => verifyLedger(store.db)
    store.db.prepare("update ledger set digest = 'x' where seq = 2").run()
    expect(walk()).toMatchObject({ ok: false, entries: 1, reason: 'ledger entry 2 does not match its hash: the entry was changed' })
    const original = store.db.prepare('select * from ledger where seq = 3').get() as Record<string, unknown>
    store.db.prepare('delete from ledger where seq = 3').run()
    expect(walk()).toMatchObject({ ok: false, reason: expect.stringMatching(/^ledger entry 2 does not match|^ledger entry 4 follows entry 2/) })
    store.db.prepare('insert into ledger (seq, kind, ref, digest, prev_hash, hash) values (@seq, @kind, @ref, @digest, @prev_hash, @hash)').run(original)
    const forged = { seq: 2, kind: 'event', ref: '2', digest: 'x', prevHash: genesisHash }
    store.db.prepare('update ledger set prev_hash = ?, hash = ? where seq = 2').run(genesisHash, entryHash(forged))
    expect(walk()).toMatchObject({ ok: false, reason: "ledger entry 2's prev_hash is not the hash of entry 1: an entry was changed or replaced" })
  })
})

describe('audit anchor', () => {
  it('the console moves the anchor to the head; after the chain lost the anchored head it keeps the old one and says why', () => {
    store.events.append('a', {})
    expect(store.audit.anchorHead()).toEqual({ anchored: expect.objectContaining({ seq: 1 }) })
    store.events.append('b', {})
    store.events.append('c', {})
    expect(store.audit.anchorHead()).toEqual({ anchored: expect.objectContaining({ seq: 3 }) })
    store.db.prepare('delete from ledger where seq = 3').run()
    store.db.prepare('delete from events where seq = 3').run()
    const outcome = store.audit.anchorHead()
    expect(outcome).toEqual({
      problem: expect.stringMatching(/^the ledger ends at entry 2, before the head anchored at entry 3 on .* \(.*audit-anchor\.json\): entries were removed$/)
    })
    expect(store.settings.read('audit.anchor')).toMatchObject({ seq: 3 })
    expect(store.audit.verify()).toMatchObject({ ok: false, failed: 'anchor' })
  })

  it('an empty home anchors nothing and verifies; a verify then anchors the head in both places', () => {
    expect(store.audit.anchorHead()).toEqual({ anchored: null })
    expect(store.audit.verify()).toMatchObject({ ok: true, rows: 0, entries: 0, head: null, matched: [] })
    store.events.append('a', {})
    const verified = store.audit.verify()
    expect(verified).toMatchObject({ ok: true, entries: 1, anchored: { seq: 1 } })
    expect(store.audit.verify()).toMatchObject({ ok: true, matched: [expect.objectContaining({ seq: 1 }), expect.objectContaining({ seq: 1 })] })
    expect(JSON.parse(readFileSync(join(dir.path, 'audit-anchor.json'), 'utf8'))).toMatchObject({ seq: 1, hash: verified.ok ? verified.head!.hash : '' })
  })

  it('an anchor file that cannot be trusted fails verification: deleted, writable by others, a symlink, not an anchor', () => {
    store.events.append('a', {})
    expect(store.audit.verify().ok).toBe(true)
    const file = join(dir.path, 'audit-anchor.json')
    const saved = readFileSync(file, 'utf8')
    const problemOf = () => {
      const result = store.audit.verify()
      return result.ok ? undefined : result.reason
    }
    rmSync(file)
    expect(problemOf()).toMatch(/audit-anchor\.json is missing, but the database records a head anchored at entry 1: the file was deleted/)
    writeFileSync(file, saved, { mode: 0o600 })
    chmodSync(file, 0o622)
    expect(problemOf()).toMatch(/is writable by others \(mode 622\)/)
    rmSync(file)
    writeFileSync(join(dir.path, 'elsewhere.json'), saved, { mode: 0o600 })
    symlinkSync(join(dir.path, 'elsewhere.json'), file)
    expect(problemOf()).toMatch(/cannot be read \(it is a symbolic link\)/)
    rmSync(file)
    writeFileSync(file, '{"seq": "1"}', { mode: 0o600 })
    expect(problemOf()).toMatch(/is not an anchor/)
    writeFileSync(file, saved, { mode: 0o600 })
    expect(store.audit.verify().ok).toBe(true)
  })
})
