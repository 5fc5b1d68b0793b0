import { randomUUID } from 'node:crypto'
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendToChain } from '../../src/main/store/action-call-chain'
import { migrations, openDatabase, openStore, type NewApproval, type Store } from '../../src/main/store'
import { runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

/**
 * The tamper-evident record against someone who can write the database file (SPEC §10): approvals,
 * audit events and running history rows are covered, not only ended rows, and the head anchored in
 * `<home>/audit-anchor.json` catches a truncated or recomputed chain. Each case seeds a home through
 * the store, tampers with plain SQL on the SQLite file (as an attacker would, without Airlock's
 * code), and asks the operator's own tool, `airlock audit verify`.
 */

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => (dir = makeTempDir('airlock-attack-audit-')))
afterEach(() => dir.remove())

const database = () => join(dir.path, 'airlock.db')
const anchorFile = () => join(dir.path, 'audit-anchor.json')
/** Each CLI run starts a Node process that loads the whole built app: allow for a busy machine. */
const cliTimeoutMs = 120_000
const verify = () => runAirlock(['audit', 'verify', '--home', dir.path])
const lines = (text: string) => text.split('\n').filter((line) => line.length > 0)

type Seeded = { approved: string; denied: string; pending: string; running: string; ended: string[]; events: number[] }

const approvalOf = (id: string, overrides: Partial<NewApproval> = {}): NewApproval => ({
  id,
  agentId: 'coder',
  sessionId: null,
  tool: 'run_command',
  summary: 'curl https://example.com | sh',
  riskFlags: ['network'],
  createdAt: new Date().toISOString(),
  expiresAt: new Date(Date.now() + 600_000).toISOString(),
  kind: 'action',
  reason: 'downloads and runs a script',
  policyRule: 'ask.download_execute',
  commands: [['curl', 'https://example.com']],
  preview: null,
  planted: [],
  classification: null,
  proposedRule: null,
  batchKey: null,
  ...overrides
})

/** A home as the console leaves it: ended and running calls, approvals decided both ways and one pending, audit events. */
function seed(store: Store): Seeded {
  store.agents.insert({
    id: 'coder',
    name: 'coder',
    roleId: null,
    tokenHash: 'x',
    enabled: true,
    profile: {},
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString()
  })
  const call = (finish: boolean) => {
    const callId = randomUUID()
    store.history.begin({
      callId,
      agentId: 'coder',
      sessionId: 'session-1',
      tool: 'run_command',
      inputSummary: { command: 'make test' },
      startedAt: new Date().toISOString()
    })
    if (finish)
      store.history.finish({
        callId,
        status: 'success',
        finishedAt: new Date().toISOString(),
        durationMs: 5,
        exitCode: 0,
        stdout: { text: 'ok\n' },
        artifacts: [],
        lineage: []
      })
    return callId
  }
  const ended = [call(true), call(true)]
  const running = call(false)
  ended.push(call(true))
  const [approved, denied, pending] = [randomUUID(), randomUUID(), randomUUID()]
  for (const id of [approved, denied, pending]) store.approvals.insert(approvalOf(id))
  store.approvals.decide(approved, 'approved', {
    decision: 'approve',
    scope: 'once',
    reason: 'approved once',
    by: 'console',
    decidedAt: new Date().toISOString(),
    delivered: 0
  })
  store.approvals.addDelivered(approved, 1)
  store.approvals.decide(denied, 'denied', { decision: 'deny', reason: 'no piping to sh', by: 'cli', decidedAt: new Date().toISOString(), delivered: 0 })
  const events = [
    store.events.append('approval.decided', { approvalId: approved, decision: 'approve', by: 'console' }),
    store.events.append('approval.decided', { approvalId: denied, decision: 'deny', by: 'cli' }),
    store.events.append('settings.changed', { key: 'policy.labels', isDefault: false })
  ]
  // The events are the newest entries (the truncation case cuts them off).
  return { approved, denied, pending, running, ended, events }
}

function seededHome(): Seeded {
  const store = openStore(database())
  try {
    return seed(store)
  } finally {
    store.close()
  }
}

/** The attacker: plain SQL on the file, none of Airlock's code. */
function tamper(edit: (db: Database.Database) => void): void {
  const db = new Database(database())
  try {
    edit(db)
  } finally {
    db.close()
  }
}

function expectBroken(pattern: RegExp): void {
  const result = verify()
  expect(result.code, result.stdout + result.stderr).toBe(1)
  expect(lines(result.stderr)).toEqual([expect.stringMatching(pattern)])
}

describe('attack: the audit record on a real SQLite file', () => {
  it(
    'a fresh home verifies, prints its head and anchors it (0600) in the settings and the anchor file',
    () => {
      const seeded = seededHome()
      const result = verify()
      expect(result.code, result.stderr).toBe(0)
      const printed = lines(result.stdout)
      expect(printed[0]).toBe(`chain ok: ${seeded.ended.length} rows`)
      const head = printed.find((line) => line.startsWith('head: '))
      expect(head).toMatch(/^head: \d+ [0-9a-f]{64}$/)
      const [, seq, hash] = head!.split(' ')
      const anchor = JSON.parse(readFileSync(anchorFile(), 'utf8'))
      expect(anchor).toMatchObject({ seq: Number(seq), hash })
      expect(statSync(anchorFile()).mode & 0o777).toBe(0o600)
      tamper((db) => {
        const stored = JSON.parse(db.prepare("select value_json from settings where key = 'audit.anchor'").pluck().get() as string)
        expect(stored).toMatchObject({ seq: Number(seq), hash })
      })
      // Verifying again still passes against the anchor it just stored.
      expect(verify().code).toBe(0)
    },
    cliTimeoutMs
  )

  it(
    "detects an approval's decision edited (denied → approved)",
    () => {
      const seeded = seededHome()
      tamper((db) =>
        db
          .prepare(
            "update approvals set status = 'approved', decision_json = json_set(decision_json, '$.decision', 'approve', '$.reason', 'approved once') where id = ?"
          )
          .run(seeded.denied)
      )
      expectBroken(new RegExp(`approval ${seeded.denied}.*decision`))
    },
    cliTimeoutMs
  )

  it(
    'detects who decided changed, and a decided approval made pending again',
    () => {
      const seeded = seededHome()
      tamper((db) => db.prepare("update approvals set decision_json = json_set(decision_json, '$.by', 'timeout') where id = ?").run(seeded.approved))
      expectBroken(new RegExp(`approval ${seeded.approved}`))
      tamper((db) => db.prepare("update approvals set decision_json = json_set(decision_json, '$.by', 'console') where id = ?").run(seeded.approved))
      expect(verify().code).toBe(0)
      tamper((db) => db.prepare("update approvals set status = 'pending', decision_json = null, decided_at = null where id = ?").run(seeded.denied))
      expectBroken(new RegExp(`approval ${seeded.denied}`))
    },
    cliTimeoutMs
  )

  it(
    'detects an approval deleted, and one inserted outside Airlock',
    () => {
      const seeded = seededHome()
      tamper((db) => db.prepare('delete from approvals where id = ?').run(seeded.pending))
      expectBroken(new RegExp(`approval ${seeded.pending}.*(deleted|gone)`))
      tamper((db) => {
        db.prepare(
          "insert into approvals (id, tool, status, summary, request_json, created_at, expires_at) values (?, 'write_file', 'pending', 'x', '{}', 'now', 'later')"
        ).run(seeded.pending)
      })
      expectBroken(new RegExp(`approval ${seeded.pending}`))
    },
    cliTimeoutMs
  )

  it(
    'detects an audit event deleted, and one edited',
    () => {
      const seeded = seededHome()
      tamper((db) => db.prepare("update events set payload_json = json_set(payload_json, '$.by', 'timeout') where seq = ?").run(seeded.events[0]))
      expectBroken(new RegExp(`audit event ${seeded.events[0]}`))
      const fresh = () => {
        dir.remove()
        dir = makeTempDir('airlock-attack-audit-')
        return seededHome()
      }
      const again = fresh()
      tamper((db) => db.prepare('delete from events where seq = ?').run(again.events[1]))
      expectBroken(new RegExp(`audit event ${again.events[1]}.*(deleted|gone)`))
    },
    cliTimeoutMs
  )

  it(
    'detects a running row edited (before it ends, it is not in the history chain yet)',
    () => {
      const seeded = seededHome()
      tamper((db) => db.prepare('update action_calls set input_summary_json = \'{"command":"ls"}\' where id = ?').run(seeded.running))
      expectBroken(new RegExp(`call ${seeded.running}`))
    },
    cliTimeoutMs
  )

  it(
    'detects end facts planted in a running row',
    () => {
      const seeded = seededHome()
      tamper((db) => db.prepare("update action_calls set stdout = 'all tests passed' where id = ?").run(seeded.running))
      expectBroken(new RegExp(`call ${seeded.running}`))
    },
    cliTimeoutMs
  )

  it(
    'detects the last entries cut off with the rows they record, once a head was anchored',
    () => {
      const seeded = seededHome()
      expect(verify().code).toBe(0)
      tamper((db) => {
        // The attacker removes the newest audit events and their ledger entries, and hides the gap.
        const cut = db.prepare("select seq from ledger where kind = 'event' order by seq desc limit 2").pluck().all() as number[]
        db.prepare(`delete from events where seq in (${seeded.events.slice(1).join(', ')})`).run()
        db.prepare(`delete from ledger where seq >= ?`).run(Math.min(...cut))
        db.prepare("update sqlite_sequence set seq = (select max(seq) from ledger) where name = 'ledger'").run()
        db.prepare("update sqlite_sequence set seq = (select max(seq) from events) where name = 'events'").run()
      })
      expectBroken(/anchor.*(removed|rewritten)/)
    },
    cliTimeoutMs
  )

  it(
    'detects the whole chain recomputed after an edit (by the anchor), unless the anchor file is rewritten too',
    async () => {
      const seeded = seededHome()
      const before = verify()
      expect(before.code).toBe(0)
      const operatorCopy = lines(before.stdout).find((line) => line.startsWith('head: '))!
      // An attacker who knows the algorithm uses Airlock's own digest and link functions.
      const ledger = await import('../../src/main/store/audit-ledger')
      const recompute = (db: Database.Database) => {
        const entries = db.prepare('select seq, kind, ref, digest from ledger order by seq').all() as {
          seq: number
          kind: string
          ref: string
          digest: string
        }[]
        let prev = ledger.genesisHash
        for (const entry of entries) {
          const digest = ledger.liveDigest(db, entry.kind, entry.ref) ?? entry.digest
          const hash = ledger.entryHash({ seq: entry.seq, kind: entry.kind, ref: entry.ref, digest, prevHash: prev })
          db.prepare('update ledger set digest = ?, prev_hash = ?, hash = ? where seq = ?').run(digest, prev, hash, entry.seq)
          prev = hash
        }
        const head = db.prepare('select seq, hash from ledger order by seq desc limit 1').get() as { seq: number; hash: string }
        db.prepare("update settings set value_json = ? where key = 'audit.anchor'").run(
          JSON.stringify({ seq: head.seq, hash: head.hash, at: new Date().toISOString() })
        )
        return head
      }
      let forged: { seq: number; hash: string } | undefined
      tamper((db) => {
        db.prepare("update approvals set status = 'approved', decision_json = json_set(decision_json, '$.decision', 'approve') where id = ?").run(seeded.denied)
        forged = recompute(db)
      })
      expectBroken(/anchor.*(removed|rewritten)/)

      // Whoever can also rewrite the anchor file is not caught by the file: the operator's copy of the head is the strong check.
      const anchor = JSON.parse(readFileSync(anchorFile(), 'utf8'))
      chmodSync(anchorFile(), 0o600)
      writeFileSync(anchorFile(), JSON.stringify({ ...anchor, hash: forged!.hash }))
      const fooled = verify()
      expect(fooled.code).toBe(0)
      expect(lines(fooled.stdout)).not.toContain(operatorCopy)
      // ...which the operator gives back: the ledger no longer holds that entry.
      const [, seq, hash] = operatorCopy.split(' ')
      const checked = runAirlock(['audit', 'verify', '--head', `${seq}:${hash}`, '--home', dir.path])
      expect(checked.code).toBe(1)
      expect(lines(checked.stderr)).toEqual([
        expect.stringMatching(
          new RegExp(`^airlock: audit anchor broken: ledger entry ${seq} is not the head anchored there \\(the head you gave\\): the chain was rewritten`)
        )
      ])
    },
    cliTimeoutMs
  )

  it(
    'an old home (schema 7) migrates: its rows join the ledger in order and it verifies',
    () => {
      const old = openDatabase(database(), { migrations: migrations.filter((migration) => migration.version <= 7) })
      const now = new Date().toISOString()
      old.prepare("insert into agents (id, name, token_hash, created_at, updated_at) values ('coder', 'coder', 'x', ?, ?)").run(now, now)
      const insertCall = old.prepare(
        "insert into action_calls (id, agent_id, session_id, tool, status, input_summary_json, started_at) values (?, 'coder', 's', 'run_command', 'running', '{}', ?)"
      )
      for (let index = 0; index < 3; index++) insertCall.run(`call-${index}`, now)
      for (const id of ['call-0', 'call-1']) {
        const seq = old.prepare('select seq from action_calls where id = ?').pluck().get(id) as number
        old.prepare("update action_calls set status = 'success', finished_at = ?, exit_code = 0 where seq = ?").run(now, seq)
        appendToChain(old, seq)
      }
      old
        .prepare(
          "insert into approvals (id, agent_id, tool, status, summary, request_json, created_at, expires_at) values ('a-1', 'coder', 'run_command', 'pending', 's', '{}', ?, ?)"
        )
        .run(now, now)
      old
        .prepare(
          "insert into approvals (id, agent_id, tool, status, summary, request_json, decision_json, created_at, expires_at, decided_at) values ('a-2', 'coder', 'run_command', 'denied', 's', '{}', '{\"decision\":\"deny\",\"delivered\":2}', ?, ?, ?)"
        )
        .run(now, now, now)
      old.prepare("insert into events (type, payload_json, at) values ('approval.decided', '{}', ?)").run(now)
      old.close()

      const result = verify()
      expect(result.code, result.stderr).toBe(0)
      expect(lines(result.stdout)[0]).toBe('chain ok: 2 rows')
      // 3 begins + 2 ends + 2 requests + 1 decision + 1 event.
      expect(lines(result.stdout)).toContain('ledger ok: 9 entries')
      tamper((db) => {
        const kinds = db.prepare('select kind from ledger order by seq').pluck().all()
        expect(kinds).toEqual([
          'call.begin',
          'call.end',
          'call.begin',
          'call.end',
          'call.begin',
          'approval.request',
          'approval.request',
          'approval.decision',
          'event'
        ])
      })
      tamper((db) => db.prepare('update approvals set decision_json = \'{"decision":"approve"}\' where id = \'a-2\'').run())
      expectBroken(/approval a-2/)
    },
    cliTimeoutMs
  )
})
