import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

// Attack on the record: secrets Airlock was given (an upstream MCP server's env and headers) and
// secrets an agent typed into a command line must appear in no history row, audit event, log file,
// console event or `.exec_history` line — while the agent itself still gets its full output.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
const everything = resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js')
const envCanary = 'envcanary-4b1d9e7f2a'
const headerCanary = 'headercanary-93c0f5e1b7'
const typedCanary = 'sk-typedcanary0123456789abcdef'

describe.skipIf(skip !== undefined)(`secrets never reach the record${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  const published: unknown[] = []

  beforeAll(async () => {
    dir = makeTempDir('airlock-secrets-', { outsideTmp: true })
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    host.events.subscribe((channel, payload) => published.push({ channel, payload }))
    host.agents.service.create('coder', {
      profile: {
        capabilities: ['files', 'shell', 'mcp'],
        providers: ['bubblewrap'],
        mcpServers: [
          { name: 'everything', command: ['node', everything, 'stdio'], env: { API_TOKEN: envCanary }, unsafe: true },
          { name: 'remote', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${headerCanary}` } }
        ]
      }
    })
  }, 120_000)

  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  it('keeps env, header and typed secrets out of rows, events, logs and .exec_history', async () => {
    const { sessionId } = host.agents.sessions.start('coder', 'test')
    const call = (tool: string, input: unknown) => host.agents.sessions.execute({ sessionId, tool, input })
    // Known secrets are redacted from what the agent gets (issue 10) and from every record.
    const echoed = await call('run_command', {
      command: `echo ${envCanary} ${headerCanary}; curl -H "Authorization: Bearer ${typedCanary}" http://127.0.0.1:9/ 2>/dev/null; echo --token=${typedCanary} >&2; exit 3`
    })
    expect(echoed.data).toMatchObject({ exitCode: 3 })
    expect((echoed.data as { stdout: string }).stdout).not.toContain(envCanary)
    expect((echoed.data as { stdout: string }).stdout).toContain('[redacted]')
    const big = await call('run_command', { command: `yes ${envCanary} | head -c 200000` })
    expect((big.data as { stdout: string }).stdout.length).toBeGreaterThan(100_000)
    await call('write_file', { path: 'notes.txt', content: `API_TOKEN=${typedCanary}\n${headerCanary}` })
    await call('everything__get-env', {})
    await call('remote__anything', { token: typedCanary })
    await host.agents.sessions.end(sessionId)

    const rows = host.store.db.prepare('select * from action_calls').all()
    expect(rows.length).toBe(5)
    const events = host.store.db.prepare('select * from events').all()
    const logs = readdirSync(host.paths.logs).map((name) => readFileSync(join(host.paths.logs, name), 'utf8'))
    expect(logs.length).toBeGreaterThan(0)
    const execHistory = readFileSync(join(host.agents.service.workspaceOf('coder'), '.exec_history'), 'utf8')
    const record = JSON.stringify({ rows, events, logs, execHistory, published })
    for (const canary of [envCanary, headerCanary, typedCanary]) expect(record.includes(canary), `${canary} appears in the record`).toBe(false)
    expect(record).toContain('[redacted]')
  }, 120_000)
})
