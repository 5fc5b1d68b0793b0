import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { it } from 'vitest'
import { genesisHash, hashedColumns, rowHash } from '../src/main/store/action-call-chain'
import { ActionCallRepository } from '../src/main/store/action-call-repository'
import type { HistoryQuery } from '../src/main/store/action-call-query'
import { openDatabase } from '../src/main/store/database'
import { outputSearchText } from '../src/main/store/output-search-text'
import { makeTempDir } from '../test/support/temp-home'
import { record, summarise, type BenchResult } from './support/measure'

/**
 * History at scale (TESTING.md: 1M rows, filtered page query, p95 ≤ 20 ms). The database is made by
 * the real migrations (indexes, FTS triggers); rows are bulk-inserted with plain SQL in
 * transactions of 10 000, each with its real chain link and hash computed in JS as it is inserted
 * (the same `rowHash` the repository uses; rows are chained in seq order, as if each call ended
 * before the next began). While loading, the secondary indexes and FTS triggers are set aside and
 * rebuilt afterwards from their own stored SQL, without a journal (a throwaway file), so the schema
 * queried is exactly the migrations'. Pages are then read through `ActionCallRepository.list`, the
 * code the CLI and the History view use, and the whole chain is verified (its rate is reported).
 * `HISTORY_BENCH_ROWS` shrinks the table for a quick try; `HISTORY_BENCH_DB=<file>` keeps the
 * filled database there and reuses it on the next run.
 */
const totalRows = Number(process.env.HISTORY_BENCH_ROWS ?? 1_000_000)
const pageSize = 100
const samplesPerKind = 200

/** A small deterministic PRNG, so every run inserts the same rows. */
function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const random = prng(20_240_901)
const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!
const weighted = <T>(pairs: readonly (readonly [T, number])[]): (() => T) => {
  const total = pairs.reduce((sum, [, weight]) => sum + weight, 0)
  return () => {
    let left = random() * total
    for (const [item, weight] of pairs) if ((left -= weight) < 0) return item
    return pairs[pairs.length - 1]![0]
  }
}

const syllables = ['ka', 'lo', 'mi', 'ter', 'on', 'sta', 'vel', 'qu', 'ri', 'den', 'fax', 'po', 'lin', 'zu', 'mar', 'ex', 'nor', 'ti']
const words = Array.from({ length: 3000 }, () => Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(syllables)).join(''))
/** Words that only ever appear on a command's stderr (never in an input or an error message): what `search_output` looks for. */
const stderrWords = Array.from({ length: 2000 }, () => `${Array.from({ length: 2 + Math.floor(random() * 2) }, () => pick(syllables)).join('')}err`)
const agents = Array.from({ length: 25 }, (_, i) => `agent-${String(i).padStart(2, '0')}`)
const agentOf = weighted(agents.map((agent, i) => [agent, 1 / (i + 1)] as const))
const toolOf = weighted([
  ['run_command', 40],
  ['write_file', 15],
  ['read_file', 15],
  ['edit_file', 10],
  ['run_code', 8],
  ['list_directory', 4],
  ['search_files', 4],
  ['sqlite_query', 2],
  ['browse', 1],
  ['github__create_issue', 1]
] as const)
const statusOf = weighted([
  ['success', 860],
  ['error', 70],
  ['blocked', 30],
  ['approval_required', 15],
  ['timed_out', 10],
  ['cancelled', 10],
  ['interrupted', 5]
] as const)
const providerOf = weighted([
  ['bubblewrap', 60],
  ['docker', 35],
  ['trusted_local', 5]
] as const)
const errorText: Record<string, () => string> = {
  error: () => `Command failed with exit code 1: ${pick(words)} not found in ${pick(words)}.py`,
  blocked: () => `Blocked by rule ${pick(['deny.rm_rf', 'vcs-write', 'network.none', 'classification.write_down'])}`,
  approval_required: () => 'The operator has not decided yet.',
  timed_out: () => `Timed out after ${pick([30, 60, 120])} s`,
  cancelled: () => 'The call was cancelled.',
  interrupted: () => 'Airlock stopped before this call finished; its outcome is unknown.'
}

function inputOf(tool: string): unknown {
  const file = `src/${pick(words)}/${pick(words)}.${pick(['ts', 'py', 'go', 'md', 'json'])}`
  switch (tool) {
    case 'run_command':
      return {
        command: pick([
          `pytest -q tests/test_${pick(words)}.py`,
          `npm test -- ${pick(words)}`,
          'git status',
          `ls -la src/${pick(words)}`,
          `python3 scripts/${pick(words)}.py --verbose`,
          `grep -rn ${pick(words)} src`,
          'cargo build --release',
          `make ${pick(words)}`
        ])
      }
    case 'write_file':
      return { path: file, content: Array.from({ length: 12 + Math.floor(random() * 30) }, () => pick(words)).join(' ') }
    case 'edit_file':
      return { path: file, oldText: `${pick(words)} ${pick(words)}`, newText: `${pick(words)} ${pick(words)}` }
    case 'run_code':
      return { language: pick(['python', 'nodejs']), sourceCode: `print(${pick(words)}(${Math.floor(random() * 100)}))` }
    case 'sqlite_query':
      return { database: `${pick(words)}.db`, sql: `select * from ${pick(words)} where id = ?` }
    case 'browse':
      return { url: `https://${pick(words)}.example.org/${pick(words)}` }
    default:
      return { path: file }
  }
}

function fill(db: ReturnType<typeof openDatabase>): void {
  const columns = [...hashedColumns, 'hash', 'output_text']
  const insert = db.prepare(`insert into action_calls (${columns.join(', ')}) values (${columns.map((c) => `@${c}`).join(', ')})`)
  let prev = genesisHash
  let time = Date.now() - totalRows * 7_800
  const batch = db.transaction((from: number, to: number) => {
    for (let seq = from; seq < to; seq++) {
      const tool = toolOf()
      const status = statusOf()
      const runs = tool === 'run_command' || tool === 'run_code'
      const provider = runs ? providerOf() : null
      time += Math.floor(random() * 15_600)
      const durationMs = Math.floor(random() * (runs ? 4000 : 40))
      const row: Record<string, string | number | null> = {
        seq,
        id: `00000000-0000-4000-8000-${seq.toString(16).padStart(12, '0')}`,
        agent_id: agentOf(),
        session_id: `session-${Math.floor(seq / 200)}`,
        tool,
        status,
        input_summary_json: JSON.stringify(inputOf(tool)),
        policy_json: JSON.stringify({
          decision: status === 'blocked' ? 'deny' : 'allow',
          rule: status === 'blocked' ? 'deny.rm_rf' : 'default',
          riskFlags: []
        }),
        approval_json: status === 'approval_required' ? JSON.stringify({ status: 'pending', reason: 'waiting' }) : null,
        provider_id: provider,
        provider_json: provider
          ? JSON.stringify({ providerId: provider, isolation: { processContained: provider !== 'trusted_local', mechanism: provider } })
          : null,
        exit_code: runs && status !== 'blocked' ? (status === 'success' ? 0 : 1) : null,
        stdout: runs ? `${pick(words)} ${pick(words)} passed in 0.${Math.floor(random() * 99)}s\n`.repeat(1 + Math.floor(random() * 6)) : null,
        stdout_log: null,
        stdout_sha256: null,
        stdout_truncated: 0,
        stderr: runs
          ? status === 'success'
            ? ''
            : `Traceback (most recent call last):\n  File "${pick(words)}.py", line ${Math.floor(random() * 300)}\nModuleNotFoundError: ${pick(stderrWords)} ${pick(stderrWords)} is not installed\n`
          : null,
        stderr_log: null,
        stderr_sha256: null,
        stderr_truncated: 0,
        artifacts_json: '[]',
        lineage_json: '[]',
        error_code: status === 'success' ? null : `${status}.code`,
        error_message: status === 'success' ? null : errorText[status]!(),
        result_json: JSON.stringify({ bytes: Math.floor(random() * 5000) }),
        started_at: new Date(time).toISOString(),
        started_out_of_order: 0,
        finished_at: new Date(time + durationMs).toISOString(),
        duration_ms: durationMs,
        chain_seq: seq,
        prev_hash: prev
      }
      row.hash = prev = rowHash(row)
      // What search reads of the output, as the recorder writes it (not hashed: derived from the outputs).
      row.output_text = outputSearchText((row.stdout as string | null) ?? undefined, (row.stderr as string | null) ?? undefined) ?? null
      insert.run(row)
    }
  })
  // Secondary indexes and the FTS triggers are set aside during the bulk insert and rebuilt from
  // their own stored SQL afterwards (a sort per index and one FTS rebuild beat a million random
  // inserts into each): the schema queried is exactly the one the migrations made.
  const deferred = db
    .prepare("select type, name, sql from sqlite_master where tbl_name = 'action_calls' and type in ('index', 'trigger') and sql is not null")
    .all() as { type: string; name: string; sql: string }[]
  for (const { type, name } of deferred) db.exec(`drop ${type} ${name}`)
  // A throwaway database: no journal while loading (each page is written once), WAL again after.
  db.pragma('journal_mode = OFF')
  db.pragma('synchronous = OFF')
  db.pragma('cache_size = -262144')
  for (let from = 1; from <= totalRows; from += 10_000) batch(from, Math.min(from + 10_000, totalRows + 1))
  for (const { sql } of deferred) db.exec(sql)
  db.exec("insert into action_calls_text (action_calls_text) values ('rebuild')")
  db.pragma('cache_size = -2000')
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
}

it(`history: filtered page queries at ${totalRows} rows`, () => {
  const dir = makeTempDir('airlock-bench-history-')
  try {
    const file = process.env.HISTORY_BENCH_DB ?? join(dir.path, 'airlock.db')
    const reuse = existsSync(file)
    const db = openDatabase(file)
    const filling = performance.now()
    if (!reuse) fill(db)
    const fillSeconds = (performance.now() - filling) / 1000
    const history = new ActionCallRepository(db, join(dir.path, 'logs'))
    const lastStart = Date.parse(db.prepare('select max(started_at) from action_calls').pluck().get() as string)
    const kinds: Record<string, () => HistoryQuery> = {
      agent_status: () => ({ agentId: pick(agents), status: pick(['success', 'error', 'blocked', 'timed_out'] as const) }),
      tool: () => ({ tool: toolOf() }),
      text: () => ({
        text: pick([pick(words), `${pick(words)} ${pick(words)}`, 'pytest', 'cargo build', `${pick(words).slice(0, 4)}*`]),
        ...(random() < 0.3 ? { agentId: pick(agents) } : {})
      }),
      provider: () => ({ providerId: pick(['bubblewrap', 'docker', 'trusted_local']) }),
      search_output: () => ({ text: pick([pick(stderrWords), `${pick(stderrWords)} installed`]), ...(random() < 0.3 ? { agentId: pick(agents) } : {}) }),
      time_window: () => {
        const until = lastStart - Math.floor(random() * totalRows * 7_000)
        const since = until - pick([3_600_000, 86_400_000, 3 * 86_400_000])
        return { since: new Date(since).toISOString(), until: new Date(until).toISOString(), ...(random() < 0.3 ? { agentId: pick(agents) } : {}) }
      },
      later_page: () => ({
        ...pick([{ agentId: pick(agents) }, { tool: toolOf() }, { status: 'error' as const }, {}]),
        cursor: 1 + Math.floor(random() * totalRows)
      })
    }
    const perKind: Record<string, number[]> = {}
    const all: number[] = []
    for (let round = 0; round < samplesPerKind + 20; round++) {
      for (const [kind, query] of Object.entries(kinds)) {
        const input = { ...query(), limit: pageSize }
        const started = performance.now()
        history.list(input)
        const ms = performance.now() - started
        if (round < 20)
          continue // warm-up: the first pages also load the schema and statement caches
        ;(perKind[kind] ??= []).push(ms)
        all.push(ms)
      }
    }
    const verifying = performance.now()
    const verified = history.verify()
    const verifySeconds = (performance.now() - verifying) / 1000
    if (!verified.ok || verified.rows !== totalRows) throw new Error(`the bench chain does not verify: ${JSON.stringify(verified)}`)
    db.close()
    const round3 = (value: number) => Number(value.toFixed(3))
    const overall = summarise(all)
    const results: BenchResult[] = [
      {
        name: `history.query_page.p95_ms_at_${totalRows === 1_000_000 ? '1m' : totalRows}_rows`,
        unit: 'ms',
        median: round3(overall.median),
        p95: round3(overall.p95),
        samples: all.length,
        note: `pages of ${pageSize} through ActionCallRepository.list, mixed filters (${Object.keys(kinds).join(', ')}); ${totalRows} rows ${reuse ? 'reused from HISTORY_BENCH_DB' : `bulk-inserted with real hashes in ${fillSeconds.toFixed(0)} s`}`
      },
      {
        name: `history.search_output.p95_ms_at_${totalRows === 1_000_000 ? '1m' : totalRows}_rows`,
        unit: 'ms',
        median: round3(summarise(perKind.search_output!).median),
        p95: round3(summarise(perKind.search_output!).p95),
        samples: perKind.search_output!.length,
        note: 'a page of words printed only on stderr (the FTS index reads output_text), some with an agent filter'
      },
      ...Object.entries(perKind).map(([kind, values]) => {
        const { median, p95 } = summarise(values)
        return { name: `history.query_page.${kind}_ms`, unit: 'ms', median: round3(median), p95: round3(p95), samples: values.length }
      }),
      {
        name: 'history.audit_verify.rows_per_s',
        unit: 'rows/s',
        median: Math.round(totalRows / verifySeconds),
        p95: Math.round(totalRows / verifySeconds),
        samples: 1,
        note: `verify() of ${totalRows} chained rows took ${verifySeconds.toFixed(1)} s`
      }
    ]
    record('history', results)
  } finally {
    dir.remove()
  }
})
