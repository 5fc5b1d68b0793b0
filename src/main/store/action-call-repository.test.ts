import { createHash, randomUUID } from 'node:crypto'
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../test/support/temp-home'
import type { ActionCallStart } from '../core'
import { HistoryError, type FinishedCall } from './action-call-repository'
import { genesisHash, hashedColumns, rowHash } from './action-call-chain'
import { outputSearchText } from './output-search-text'
import { migrations } from './migrations'
import { openDatabase, openStore, type Store } from '.'

let dir: ReturnType<typeof makeTempDir>
let store: Store
const file = () => join(dir.path, 'airlock.db')
const logs = () => join(dir.path, 'logs')
beforeEach(() => {
  dir = makeTempDir()
  mkdirSync(logs())
  store = openStore(file())
})
afterEach(() => {
  store.close()
  dir.remove()
})

const start = (overrides: Partial<ActionCallStart> = {}): ActionCallStart => ({
  callId: randomUUID(),
  agentId: 'agent-a',
  sessionId: 'session-1',
  tool: 'run_command',
  inputSummary: { command: 'pytest -q' },
  startedAt: new Date().toISOString(),
  ...overrides
})
const end = (callId: string, overrides: Partial<FinishedCall> = {}): FinishedCall => ({
  callId,
  status: 'success',
  finishedAt: new Date().toISOString(),
  durationMs: 12,
  exitCode: 0,
  stdout: { text: 'ok\n' },
  stderr: { text: '' },
  artifacts: [],
  lineage: [],
  provider: { providerId: 'bubblewrap', isolation: { processContained: true } },
  ...overrides
})
/** Records `count` finished calls and returns their ids, oldest first. */
function record(count: number, overrides: Partial<ActionCallStart> = {}): string[] {
  return Array.from({ length: count }, () => {
    const begun = start(overrides)
    store.history.begin(begun)
    store.history.finish(end(begun.callId))
    return begun.callId
  })
}
const seqOf = (id: string) => store.db.prepare('select seq from action_calls where id = ?').pluck().get(id) as number
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

describe('ActionCallRepository: recording and the hash chain', () => {
  it('records a running row at begin, then fills and chains it at finish', () => {
    const begun = start()
    store.history.begin(begun)
    expect(store.history.get(begun.callId)).toMatchObject({ status: 'running', chain: null, inputSummary: { command: 'pytest -q' } })
    const row = store.history.finish(end(begun.callId, { policy: { decision: 'allow', rule: 'default', riskFlags: [] }, error: undefined }))
    expect(row).toMatchObject({ id: begun.callId, status: 'success', providerId: 'bubblewrap', exitCode: 0, durationMs: 12, agentId: 'agent-a' })
    const detail = store.history.get(begun.callId)!
    expect(detail.chain).toEqual({ chainSeq: 1, prevHash: '0'.repeat(64), hash: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(detail.stdout).toEqual({ text: 'ok\n', truncated: false, logFile: null, sha256: null })
    expect(detail.policy).toEqual({ decision: 'allow', rule: 'default', riskFlags: [] })
    expect(store.history.verify()).toMatchObject({ ok: true, rows: 1 })
  })

  it('links each finished row to the one finished before it, in finishing order', () => {
    const first = start()
    const second = start()
    store.history.begin(first)
    store.history.begin(second)
    store.history.finish(end(second.callId))
    store.history.finish(end(first.callId))
    const a = store.history.get(second.callId)!.chain!
    const b = store.history.get(first.callId)!.chain!
    expect([a.chainSeq, b.chainSeq]).toEqual([1, 2])
    expect(b.prevHash).toBe(a.hash)
    expect(store.history.verify()).toMatchObject({ ok: true, rows: 2 })
  })

  it('refuses a second end, an unknown call, a duplicate begin and a malformed record, naming the field', () => {
    const [id] = record(1)
    const codeOf = (run: () => unknown) => {
      try {
        run()
      } catch (error) {
        return error instanceof HistoryError ? `${error.code}: ${error.message}` : String(error)
      }
      return 'no error'
    }
    expect(codeOf(() => store.history.finish(end(id!)))).toMatch(/^history.not_running/)
    expect(codeOf(() => store.history.finish(end(randomUUID())))).toMatch(/^history.not_found/)
    expect(codeOf(() => store.history.begin(start({ callId: id! })))).toMatch(/^history.duplicate_call/)
    expect(codeOf(() => store.history.begin(start({ tool: '' })))).toMatch(/^history.invalid_record: .*start\.tool/)
    expect(codeOf(() => store.history.finish({ ...end(id!), status: 'running' as never }))).toMatch(/^history.invalid_record: .*end\.status/)
    expect(codeOf(() => store.history.finish(end(id!, { stdout: { logFile: '../../etc/passwd', sha256: 'a'.repeat(64) } })))).toMatch(/end\.stdout/)
    expect(store.history.verify()).toMatchObject({ ok: true, rows: 1 })
  })

  it('keeps history of an agent that does not exist (no foreign key to agents or sessions)', () => {
    record(1, { agentId: 'removed-agent', sessionId: 'gone' })
    expect(store.history.list({ agentId: 'removed-agent' }).rows).toHaveLength(1)
  })
})

describe('ActionCallRepository.verify finds tampering', () => {
  const edits: [string, string][] = [
    ['status', "status = 'error'"],
    ['stdout', "stdout = 'all good'"],
    ['exit_code', 'exit_code = 1'],
    ['input_summary_json', `input_summary_json = '{"command":"ls"}'`],
    ['error_message', "error_message = 'nothing to see'"],
    ['agent_id', "agent_id = 'agent-b'"],
    ['finished_at', "finished_at = '2001-01-01T00:00:00.000Z'"],
    ['prev_hash', "prev_hash = '" + 'f'.repeat(64) + "'"],
    ['hash', "hash = '" + 'e'.repeat(64) + "'"]
  ]
  for (const [column, assignment] of edits) {
    it(`an edit of ${column} on one row fails verification at exactly that row`, () => {
      const ids = record(5)
      store.db.prepare(`update action_calls set ${assignment} where id = ?`).run(ids[2])
      const result = store.history.verify()
      expect(result).toMatchObject({ ok: false, rows: 2, brokenAt: { seq: seqOf(ids[2]!), id: ids[2] } })
    })
  }

  it('a deleted row breaks the chain at the next row', () => {
    const ids = record(5)
    store.db.prepare('delete from action_calls where id = ?').run(ids[1])
    expect(store.history.verify()).toMatchObject({ ok: false, rows: 1, brokenAt: { id: ids[2] }, reason: expect.stringMatching(/deleted/) })
  })

  it('rows cut from the end are found', () => {
    const ids = record(4)
    const last = seqOf(ids[3]!)
    store.db.prepare('delete from action_calls where seq >= ?').run(seqOf(ids[2]!))
    expect(store.history.verify()).toMatchObject({ ok: false, brokenAt: { seq: last - 1, id: null }, reason: expect.stringMatching(/deleted from the end/) })
  })

  it('a finished row inserted outside Airlock is found', () => {
    record(2)
    store.db
      .prepare(
        "insert into action_calls (id, tool, status, input_summary_json, started_at) values ('forged', 'write_file', 'success', '{}', '2020-01-01T00:00:00.000Z')"
      )
      .run()
    expect(store.history.verify()).toMatchObject({ ok: false, brokenAt: { id: 'forged' }, reason: expect.stringMatching(/not in the chain/) })
  })

  it('a changed or missing log file is found at its row', () => {
    const [before] = record(1)
    const begun = start()
    const big = 'x'.repeat(70_000)
    writeFileSync(join(logs(), `${begun.callId}.stdout`), big)
    store.history.begin(begun)
    store.history.finish(end(begun.callId, { stdout: { logFile: `${begun.callId}.stdout`, sha256: sha256(big) } }))
    record(1)
    expect(store.history.verify()).toMatchObject({ ok: true, rows: 3 })
    expect(store.history.get(begun.callId)!.stdout).toMatchObject({ text: null, logFile: `${begun.callId}.stdout`, sha256: sha256(big) })
    appendFileSync(join(logs(), `${begun.callId}.stdout`), 'tampered')
    expect(store.history.verify()).toMatchObject({
      ok: false,
      rows: 1,
      brokenAt: { id: begun.callId },
      reason: expect.stringMatching(/stdout log file .* was changed/)
    })
    rmSync(join(logs(), `${begun.callId}.stdout`))
    expect(store.history.verify()).toMatchObject({ ok: false, brokenAt: { id: begun.callId }, reason: expect.stringMatching(/cannot be read \(ENOENT\)/) })
    expect(before).toBeDefined()
  })
})

describe('ActionCallRepository after a crash and across versions', () => {
  it('a call begun but never finished becomes interrupted and chained at the next start', () => {
    record(2)
    const orphan = start()
    store.history.begin(orphan)
    store.close()
    store = openStore(file())
    const interrupted = store.history.interruptRunning()
    expect(interrupted.map((row) => [row.id, row.status, row.error?.code])).toEqual([[orphan.callId, 'interrupted', 'interrupted']])
    expect(store.history.get(orphan.callId)!.chain?.chainSeq).toBe(3)
    expect(store.history.verify()).toMatchObject({ ok: true, rows: 3 })
    expect(store.history.interruptRunning()).toEqual([])
  })

  it('upgrading from version 1 keeps old calls, chains the finished ones and leaves the running one to recovery', () => {
    store.close()
    rmSync(file())
    const old = openDatabase(file(), { migrations: migrations.filter((m) => m.version === 1) })
    const insert = old.prepare('insert into action_calls (id, tool, status, input_json, started_at, finished_at, hash) values (?, ?, ?, ?, ?, ?, ?)')
    insert.run('old-1', 'write_file', 'success', '{"path":"a"}', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:01.000Z', 'whatever')
    insert.run('old-2', 'run_command', 'weird', '{}', '2024-01-01T00:00:02.000Z', null, null)
    insert.run('old-3', 'run_command', 'running', '{}', '2024-01-01T00:00:03.000Z', null, null)
    old.close()
    store = openStore(file())
    expect(store.history.list().rows.map((row) => [row.id, row.status])).toEqual([
      ['old-3', 'running'],
      ['old-2', 'interrupted'],
      ['old-1', 'success']
    ])
    expect(store.history.verify()).toMatchObject({ ok: true, rows: 2 })
    store.history.interruptRunning()
    record(1)
    expect(store.history.verify()).toMatchObject({ ok: true, rows: 4 })
    expect(store.history.list({ text: 'write' }).rows.map((row) => row.id)).toEqual(['old-1'])
  })
})

describe('ActionCallRepository.list', () => {
  it('filters by agent, tool, status, provider, time and text, newest first, with cursor paging', () => {
    const ids = record(5, { agentId: 'agent-a', tool: 'run_command', inputSummary: { command: 'pytest -q tests/unit' } })
    const other = start({ agentId: 'agent-b', tool: 'write_file', inputSummary: { path: 'src/app.py' }, startedAt: '2020-05-05T10:00:00.000Z' })
    store.history.begin(other)
    store.history.finish(end(other.callId, { status: 'error', provider: undefined, error: { code: 'policy.blocked', message: 'Denied by rule vcs-write' } }))
    const idsOf = (query: Parameters<Store['history']['list']>[0]) => store.history.list(query).rows.map((row) => row.id)
    expect(idsOf({ agentId: 'agent-a' })).toEqual([...ids].reverse())
    expect(idsOf({ tool: 'write_file' })).toEqual([other.callId])
    expect(idsOf({ status: 'error', agentId: 'agent-b' })).toEqual([other.callId])
    expect(idsOf({ status: 'error', agentId: 'agent-a' })).toEqual([])
    expect(idsOf({ providerId: 'bubblewrap' })).toHaveLength(5)
    expect(idsOf({ until: '2021-01-01T00:00:00Z' })).toEqual([other.callId])
    expect(idsOf({ since: '2021-01-01T00:00:00+02:00' })).toEqual([...ids].reverse())
    expect(idsOf({ text: 'vcs' })).toEqual([other.callId])
    expect(idsOf({ text: 'src/app' })).toEqual([other.callId])
    expect(idsOf({ text: 'pyt', agentId: 'agent-a' })).toEqual([])
    expect(idsOf({ text: 'pyt*', agentId: 'agent-a', limit: 2 })).toEqual([ids[4], ids[3]])
    expect(idsOf({ text: 'PYTEST unit', providerId: 'bubblewrap', tool: 'run_command', status: 'success' })).toHaveLength(5)
    expect(idsOf({ tool: 'run_command', providerId: 'docker' })).toEqual([])
    expect(idsOf({ tool: 'write_file', agentId: 'agent-b', status: 'error' })).toEqual([other.callId])
    expect(idsOf({ text: 'nothing-like-it' })).toEqual([])
    expect(idsOf({ text: '"NEAR( *' })).toEqual([])
    expect(idsOf({ text: '-- ::' })).toEqual([])
    const first = store.history.list({ limit: 4 })
    expect(first.rows).toHaveLength(4)
    const second = store.history.list({ limit: 4, cursor: first.nextCursor })
    expect(second.nextCursor).toBeUndefined()
    expect([...first.rows, ...second.rows].map((row) => row.id)).toEqual([other.callId, ...[...ids].reverse()])
    const textPage = store.history.list({ text: 'pytest', limit: 3 })
    expect(store.history.list({ text: 'pytest', cursor: textPage.nextCursor }).rows.map((row) => row.id)).toEqual([ids[1], ids[0]])
    expect(store.history.list({ tool: 'write_file' }).rows[0]).toMatchObject({
      status: 'error',
      providerId: null,
      error: { code: 'policy.blocked', message: 'Denied by rule vcs-write' }
    })
  })

  it('filters by time exactly, also around a clock that went back', () => {
    const at = (time: string) => {
      const begun = start({ startedAt: `2024-03-01T${time}:00.000Z` })
      store.history.begin(begun)
      store.history.finish(end(begun.callId))
      return begun.callId
    }
    const [ten, tenFive, nine, tenTen] = [at('10:00'), at('10:05'), at('09:00'), at('10:10')]
    const late = store.db.prepare('select id from action_calls where started_out_of_order = 1').pluck().all()
    expect(late).toEqual([nine])
    const idsOf = (since?: string, until?: string) =>
      store.history
        .list({ ...(since ? { since: `2024-03-01T${since}:00Z` } : {}), ...(until ? { until: `2024-03-01T${until}:00Z` } : {}) })
        .rows.map((row) => row.id)
    expect(idsOf('08:59', '09:01')).toEqual([nine])
    expect(idsOf('10:04')).toEqual([tenTen, tenFive])
    expect(idsOf(undefined, '10:06')).toEqual([nine, tenFive, ten])
    expect(idsOf('09:30', '10:07')).toEqual([tenFive, ten])
    expect(idsOf('10:01', '10:04')).toEqual([])
    expect(idsOf('11:00')).toEqual([])
    expect(idsOf('10:07', '10:01')).toEqual([])
    expect(store.history.list({ since: '2024-03-01T08:00:00Z', until: '2024-03-01T10:07:00Z', text: 'pytest', limit: 2 }).rows.map((row) => row.id)).toEqual([
      nine,
      tenFive
    ])
  })
})

describe('ActionCallRepository: waiting for approval, and search inside output (version 10)', () => {
  it('a running call that waits shows waiting_approval with its start, filters apart from running, and ends with the wait kept apart from the run', () => {
    const waiting = start()
    const running = start()
    store.history.begin(waiting)
    store.history.begin(running)
    expect(store.history.waiting(waiting.callId, '2026-12-04T10:00:00.000Z')).toBe(true)
    const statusOf = (id: string) => store.history.list().rows.find((row) => row.id === id)
    expect(statusOf(waiting.callId)).toMatchObject({ status: 'waiting_approval', waitingSince: '2026-12-04T10:00:00.000Z' })
    expect(statusOf(running.callId)).toMatchObject({ status: 'running', waitingSince: null })
    const ids = (status: 'running' | 'waiting_approval') => store.history.list({ status }).rows.map((row) => row.id)
    expect(ids('waiting_approval')).toEqual([waiting.callId])
    expect(ids('running')).toEqual([running.callId])
    expect(store.history.list({ status: 'waiting_approval', agentId: 'agent-a', tool: 'run_command' }).rows.map((row) => row.id)).toEqual([waiting.callId])
    expect(store.history.count({ status: 'waiting_approval' })).toBe(1)
    const now = new Date()
    expect(store.history.usage({ since: new Date(now.getTime() - 3_600_000), now }).buckets.at(-1)?.counts).toMatchObject({ waiting_approval: 1, running: 1 })
    // Decided after 30 s; the call then ran 57 ms: the run time is what percentiles count.
    store.history.waiting(waiting.callId, null)
    expect(statusOf(waiting.callId)?.status).toBe('running')
    const row = store.history.finish(
      end(waiting.callId, { durationMs: 30_057, approval: { status: 'approved', reason: 'operator', approvalId: 'a1', waitedMs: 30_000 } })
    )
    expect(row).toMatchObject({ status: 'success', durationMs: 30_057, waitMs: 30_000, waitingSince: null })
    store.history.finish(end(running.callId, { durationMs: 40 }))
    expect(store.history.usage({ since: new Date(now.getTime() - 3_600_000), now: new Date() }).durations).toMatchObject({ count: 2, p50: 40, p99: 57 })
    // A call that is not running is never marked.
    expect(store.history.waiting(waiting.callId, new Date().toISOString())).toBe(false)
    expect(store.history.verify()).toMatchObject({ ok: true, rows: 2 })
    expect(store.history.audit()).toMatchObject({ ok: true })
    // A row edited by hand into something that is not JSON breaks verification, not the usage query.
    store.db.prepare("update action_calls set approval_json = '{not json' where id = ?").run(waiting.callId)
    expect(store.history.usage({ since: new Date(now.getTime() - 3_600_000), now: new Date() }).durations.count).toBe(2)
  })

  it('a word printed only on stderr (or only late in a long stdout) is found; colours are no part of a word; the row is not', () => {
    const failing = start({ inputSummary: { command: 'git commit -m wip' } })
    store.history.begin(failing)
    const stderr = 'fatal: detected \x1b[31mdubious\x1b[0m ownership in repository\n'
    store.history.finish(end(failing.callId, { status: 'success', exitCode: 128, stderr: { text: stderr }, outputText: outputSearchText('', stderr) }))
    const long = start()
    store.history.begin(long)
    const stdout = `${'progress line\n'.repeat(5000)}FAILED test_quaternion_inverse\n`
    store.history.finish(end(long.callId, { stdout: { logFile: `${long.callId}.stdout`, sha256: sha256(stdout) }, outputText: outputSearchText(stdout, '') }))
    record(3)
    const ids = (text: string) => store.history.list({ text }).rows.map((row) => row.id)
    expect(ids('dubious')).toEqual([failing.callId])
    expect(ids('dubious ownership')).toEqual([failing.callId])
    expect(ids('quaternion')).toEqual([long.callId])
    expect(ids('31m')).toEqual([])
    expect(store.history.count({ text: 'dubious', status: 'success' })).toBe(1)
  })

  it('upgrading from version 9 makes the output kept inline searchable, and keeps the chain', () => {
    store.close()
    rmSync(file())
    const old = openDatabase(file(), { migrations: migrations.filter((m) => m.version <= 9) })
    // A row as version 9 stored it (its columns only), chained with the hash the chain's encoding gives.
    const begun = start()
    const row: Record<string, string | number | null> = Object.fromEntries(hashedColumns.map((column) => [column, null]))
    Object.assign(row, {
      seq: 1,
      id: begun.callId,
      tool: 'run_command',
      status: 'success',
      input_summary_json: '{}',
      stdout_truncated: 0,
      stderr: 'warning: unreachable zanzibar code\n',
      stderr_truncated: 0,
      artifacts_json: '[]',
      lineage_json: '[]',
      started_at: begun.startedAt,
      started_out_of_order: 0,
      finished_at: begun.startedAt,
      duration_ms: 1,
      chain_seq: 1,
      prev_hash: genesisHash
    })
    row.hash = rowHash(row)
    old
      .prepare(
        `insert into action_calls (${Object.keys(row).join(', ')}) values (${Object.keys(row)
          .map((column) => `@${column}`)
          .join(', ')})`
      )
      .run(row)
    old.close()
    store = openStore(file())
    expect(store.history.list({ text: 'zanzibar' }).rows.map((row) => row.id)).toEqual([begun.callId])
    expect(store.history.verify()).toMatchObject({ ok: true, rows: 1 })
  })
})
