import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

// Attack on the record: a known secret (an MCP server's env value, which the agent can learn from
// the server itself) placed where redaction of string values does not look — an object key of the
// input, the tool name, a column name of a sqlite_query result. Safe outcome: the canary appears
// in no history row, audit event, log file or `.exec_history` line.
// (Found open by an attack round: keys, tool names, artifacts and lineage now go through redaction too.)

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
const everything = resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js')
const envCanary = 'keycanary7c1e0d5a93'

describe.skipIf(skip !== undefined)(`secrets in keys and names never reach the record${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host

  beforeAll(async () => {
    dir = makeTempDir('airlock-attack-keys-', { outsideTmp: true })
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    host.agents.service.create('coder', {
      profile: {
        capabilities: ['files', 'shell', 'mcp', 'sqlite'],
        providers: ['bubblewrap'],
        ask: 'never',
        mcpServers: [{ name: 'everything', command: ['node', everything, 'stdio'], env: { API_TOKEN: envCanary }, unsafe: true }]
      }
    })
  }, 120_000)

  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  /** Where the canary is in the record of one session's calls (rows, their events, logs and .exec_history lines). */
  const leaks = (sessionId: string) => {
    const rows = host.store.db.prepare('select * from action_calls where session_id = ?').all(sessionId) as { id: string }[]
    expect(rows.length).toBeGreaterThan(0)
    const ids = rows.map((row) => row.id)
    const events = (host.store.db.prepare('select * from events').all() as { payload_json: string }[]).filter((event) =>
      ids.some((id) => event.payload_json.includes(id))
    )
    const logs = existsSync(host.paths.logs)
      ? readdirSync(host.paths.logs)
          .filter((name) => ids.some((id) => name.startsWith(id)))
          .map((name) => readFileSync(join(host.paths.logs, name), 'utf8'))
      : []
    const historyFile = join(host.agents.service.workspaceOf('coder'), '.exec_history')
    const execHistory = (existsSync(historyFile) ? readFileSync(historyFile, 'utf8') : '').split('\n').filter((line) => ids.some((id) => line.includes(id)))
    return Object.entries({ rows, events, logs, execHistory })
      .filter(([, value]) => JSON.stringify(value).includes(envCanary))
      .map(([where]) => where)
  }

  it('redacts a known secret used as an input key', async () => {
    const { sessionId } = host.agents.sessions.start('coder', 'keys')
    await host.agents.sessions.execute({ sessionId, tool: 'sqlite_query', input: { database: 'k.db', sql: 'select 1', params: { [envCanary]: 1 } } })
    await host.agents.sessions.execute({ sessionId, tool: 'everything__echo', input: { message: 'hi', [envCanary]: 'x' } })
    expect(leaks(sessionId)).toEqual([])
  }, 60_000)

  it('redacts a known secret used as a tool name', async () => {
    const { sessionId } = host.agents.sessions.start('coder', 'tool')
    await host.agents.sessions.execute({ sessionId, tool: `everything__${envCanary}`, input: {} })
    await host.agents.sessions.execute({ sessionId, tool: envCanary, input: {} })
    expect(leaks(sessionId)).toEqual([])
  }, 60_000)

  it('redacts a known secret that comes back as a result column name', async () => {
    const { sessionId } = host.agents.sessions.start('coder', 'column')
    const result = await host.agents.sessions.execute({ sessionId, tool: 'sqlite_query', input: { database: 'c.db', sql: `select 1 as "${envCanary}"` } })
    // Known secrets are redacted from what the agent gets too (output redaction, issue 10).
    expect(result.data).toMatchObject({ rows: [{ '[redacted]': 1 }] })
    expect(result.meta.redaction).toEqual({ replaced: 1, kinds: ['known_secret'] })
    expect(leaks(sessionId)).toEqual([])
  }, 60_000)
})
