import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openStore, type Store } from '../../src/main/store'
import { runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => (dir = makeTempDir()))
afterEach(() => dir.remove())

const lines = (text: string) => text.split('\n').filter((line) => line.length > 0)
/** Each CLI run starts a Node process that loads the whole built app: allow for a busy machine. */
const cliTimeoutMs = 120_000

type Call = { agentId: string; tool: string; status: 'success' | 'error'; exitCode?: number }
/** Records calls the way the console does (begin, then finish: chained) and returns their ids, oldest first. */
function recordCalls(store: Store, calls: Call[]): string[] {
  return calls.map((call) => {
    const callId = randomUUID()
    store.history.begin({
      callId,
      agentId: call.agentId,
      sessionId: 'session-1',
      tool: call.tool,
      inputSummary: { command: 'make test' },
      startedAt: new Date().toISOString()
    })
    store.history.finish({
      callId,
      status: call.status,
      finishedAt: new Date().toISOString(),
      durationMs: 42,
      ...(call.exitCode === undefined ? {} : { exitCode: call.exitCode }),
      stdout: { text: 'done\n' },
      artifacts: [],
      lineage: [],
      provider: { providerId: 'bubblewrap' },
      ...(call.status === 'error' ? { error: { code: 'command.failed', message: 'exit 2\nsee stderr' } } : {})
    })
    return callId
  })
}

const calls: Call[] = [
  { agentId: 'coder', tool: 'run_command', status: 'success', exitCode: 0 },
  { agentId: 'coder', tool: 'write_file', status: 'success' },
  { agentId: 'reviewer', tool: 'run_command', status: 'error', exitCode: 2 },
  { agentId: 'coder', tool: 'run_command', status: 'error', exitCode: 1 }
]

describe('airlock history', () => {
  it(
    'prints the newest calls as JSON rows and as lines, filtered, while a console holds the same database open',
    () => {
      const consoleStore = openStore(join(dir.path, 'airlock.db'))
      try {
        const ids = recordCalls(consoleStore, calls)
        const running = randomUUID()
        consoleStore.history.begin({
          callId: running,
          agentId: 'coder',
          sessionId: 'session-1',
          tool: 'run_code',
          inputSummary: {},
          startedAt: new Date().toISOString()
        })

        const all = runAirlock(['history', '--json', '--home', dir.path])
        expect(all.code).toBe(0)
        const rows = JSON.parse(all.stdout) as Record<string, unknown>[]
        expect(rows.map((row) => row.id)).toEqual([running, ...[...ids].reverse()])
        expect(rows[1]).toEqual({
          seq: expect.any(Number),
          id: ids[3],
          agentId: 'coder',
          sessionId: 'session-1',
          tool: 'run_command',
          status: 'error',
          providerId: 'bubblewrap',
          exitCode: 1,
          durationMs: 42,
          waitMs: null,
          waitingSince: null,
          startedAt: expect.any(String),
          finishedAt: expect.any(String),
          error: { code: 'command.failed', message: 'exit 2\nsee stderr' },
          inputSummary: { command: 'make test' },
          approval: null,
          // The endpoints the call reached through the egress proxy (none here).
          lineage: []
        })
        expect(rows[0]).toMatchObject({ status: 'running', finishedAt: null, exitCode: null, error: null })

        const filtered = runAirlock(['history', '--agent', 'coder', '--tool', 'run_command', '--status', 'error', '--json'], { AIRLOCK_HOME: dir.path })
        expect(JSON.parse(filtered.stdout).map((row: { id: string }) => row.id)).toEqual([ids[3]])

        const text = runAirlock(['history', '--limit', '2', '--home', dir.path])
        expect(text.code).toBe(0)
        const printed = lines(text.stdout)
        expect(printed).toHaveLength(2)
        expect(printed[1]).toMatch(
          new RegExp(`\\s+error\\s+coder\\s+run_command\\s+bubblewrap\\s+exit=1\\s+42ms\\s+${ids[3]}\\s+command\\.failed: exit 2 see stderr$`)
        )

        expect(lines(runAirlock(['history', '--agent', 'nobody', '--home', dir.path]).stdout)).toEqual(['No calls match.'])
      } finally {
        consoleStore.close()
      }
    },
    cliTimeoutMs
  )

  it(
    'refuses a home without a database (exit 1) and creates nothing',
    () => {
      const home = join(dir.path, 'empty-home')
      mkdirSync(home)
      const result = runAirlock(['history', '--home', home])
      expect(result.code).toBe(1)
      expect(lines(result.stderr)).toEqual([expect.stringMatching(/^airlock: no Airlock database at .*check --home/)])
      expect(existsSync(join(home, 'airlock.db'))).toBe(false)
    },
    cliTimeoutMs
  )

  const badUsage: [string, string[], RegExp][] = [
    [
      'a status not in the list',
      ['history', '--status', 'failed'],
      /^airlock: --status must be one of running, waiting_approval, success, error, blocked, approval_required, timed_out, cancelled, interrupted, got "failed"$/
    ],
    ['a zero limit', ['history', '--limit', '0'], /^airlock: --limit must be a whole number from 1 to 10000, got "0"$/],
    ['a limit over 10000', ['history', '--limit', '10001'], /--limit must be a whole number/],
    ['a limit that is not a number', ['history', '--limit', 'ten'], /--limit must be a whole number/],
    ['audit without an action', ['audit'], /^airlock: audit needs verify$/],
    ['an unknown audit action', ['audit', 'repair'], /^airlock: unknown audit action "repair"/]
  ]
  for (const [name, args, message] of badUsage) {
    it(
      `refuses ${name}: exit 2, one line on stderr`,
      () => {
        const result = runAirlock([...args, '--home', dir.path])
        expect(result.code).toBe(2)
        expect(lines(result.stderr)).toEqual([expect.stringMatching(message)])
        expect(result.stdout).toBe('')
      },
      cliTimeoutMs
    )
  }
})

describe('airlock audit verify', () => {
  it(
    'says the chain is intact, then names the first broken row after a plain SQL edit',
    () => {
      const store = openStore(join(dir.path, 'airlock.db'))
      const ids = recordCalls(store, calls)
      store.close()

      const intact = runAirlock(['audit', 'verify', '--home', dir.path])
      expect(intact.code).toBe(0)
      // 4 calls: a begin and an end each in the audit ledger; no anchor before this first verify.
      expect(lines(intact.stdout)).toEqual([
        'chain ok: 4 rows',
        'ledger ok: 8 entries',
        expect.stringMatching(/^head: 8 [0-9a-f]{64}$/),
        'anchor: none before this run'
      ])
      const head = lines(intact.stdout)[2]!.split(' ')[2]
      const json = JSON.parse(runAirlock(['audit', 'verify', '--json', '--home', dir.path]).stdout)
      expect(json).toEqual({
        ok: true,
        rows: 4,
        head: expect.stringMatching(/^[0-9a-f]{64}$/),
        ledger: { entries: 8, head: { seq: 8, hash: head } },
        // The first run anchored the head in both places; this one found it in both and anchored it again.
        anchor: {
          matched: [expect.objectContaining({ seq: 8, hash: head }), expect.objectContaining({ seq: 8, hash: head })],
          anchored: expect.objectContaining({ seq: 8, hash: head })
        }
      })
      expect(lines(runAirlock(['audit', 'verify', '--home', dir.path]).stdout)[3]).toMatch(
        /^anchor ok: the chain still holds the head anchored at entry 8 on \S+$/
      )

      const tamper = openStore(join(dir.path, 'airlock.db'))
      tamper.db.prepare("update action_calls set exit_code = 0, status = 'success' where id = ?").run(ids[2])
      const seq = tamper.db.prepare('select seq from action_calls where id = ?').pluck().get(ids[2])
      tamper.close()

      const broken = runAirlock(['audit', 'verify', '--home', dir.path])
      expect(broken.code).toBe(1)
      expect(broken.stdout).toBe('')
      expect(lines(broken.stderr)).toEqual([`airlock: chain broken at seq ${seq} (call ${ids[2]}): its contents do not match its hash: the row was changed`])
    },
    cliTimeoutMs
  )

  it(
    'names an audit event edited outside Airlock, and a ledger cut back past the anchored head',
    () => {
      const store = openStore(join(dir.path, 'airlock.db'))
      recordCalls(store, calls.slice(0, 1))
      const event = store.events.append('settings.changed', { key: 'approval.handler', isDefault: false })
      store.close()
      expect(runAirlock(['audit', 'verify', '--home', dir.path]).code).toBe(0)

      const tamper = openStore(join(dir.path, 'airlock.db'))
      tamper.db.prepare("update events set payload_json = '{}' where seq = ?").run(event)
      tamper.close()
      const edited = runAirlock(['audit', 'verify', '--home', dir.path])
      expect(edited.code).toBe(1)
      expect(edited.stdout).toBe('')
      expect(lines(edited.stderr)).toEqual([
        `airlock: audit ledger broken: audit event ${event} (settings.changed) does not match ledger entry 3: the event was changed`
      ])

      const cut = openStore(join(dir.path, 'airlock.db'))
      cut.db.prepare('delete from events where seq = ?').run(event)
      cut.db.prepare('delete from ledger where seq = 3').run()
      cut.close()
      const truncated = runAirlock(['audit', 'verify', '--home', dir.path])
      expect(truncated.code).toBe(1)
      expect(lines(truncated.stderr)).toEqual([
        expect.stringMatching(
          /^airlock: audit anchor broken: the ledger ends at entry 2, before the head anchored at entry 3 on \S+ \(\S+audit-anchor\.json\): entries were removed \(head now: 2 [0-9a-f]{64}\)$/
        )
      ])
    },
    cliTimeoutMs
  )
})
