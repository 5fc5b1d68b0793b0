import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { airlockContract } from '@shared/ipc'
import { settingKeys } from '@shared/settings'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { serve, type RunningConsole } from '../../src/main/app/serve'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'
import { canaries, configCanary, runSecretsScenario, secretsIn, secretValues, type SecretsScenario } from './secrets-scenario'

// Attack on the record, widened: secrets Airlock was told (an agent's and a role's MCP `env` and
// `headers`, a process variable named in `policy.secret_env_vars`, the agents' tokens), secrets
// typed in command lines and code arguments, and secrets printed by commands, code and upstream
// servers, through the real gateway, sandbox and SQLite file. Then every place they could land is
// read: every table of the database, every file under the home, everything the host published to
// consoles, whatever it logged, and the answer to every read call of the contract a console makes
// (called through the host's dispatcher, as Electron IPC and the web console do).

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
const ctx = { transport: 'websocket' } as const

/**
 * Tables where Airlock keeps what it was given, as given: a profile's and a role's MCP secrets
 * must be stored to be used, and a setting is stored as the operator saved it. Their contents are
 * checked to hold exactly those (so the dump below is known to read real rows); every other table
 * must hold none.
 */
const storedAsGiven: Record<string, string[]> = {
  agents: ['mcpEnv', 'mcpHeader'],
  roles: ['roleEnv'],
  settings: ['configCanary']
}

/**
 * Contract calls that change something: the scenario makes some of them (their answers are read
 * back through the read calls), the rest act on the host and are not reads of what is recorded.
 */
const changingCalls = new Set([
  'settings:set',
  'settings:reset',
  'resources:release',
  'providers:provisionImage',
  'doctor:run',
  'agents:create',
  'agents:update',
  'agents:setEnabled',
  'agents:remove',
  'agents:rotateToken',
  'system:rotateConsoleToken',
  'history:cancel',
  'checkpoints:revert',
  'checkpoints:restore',
  // Shows the operator what redaction hid, on purpose (audited); the scan checks what is recorded and published.
  'approvals:reveal',
  'agents:saveRole',
  'agents:removeRole',
  'skills:approve',
  'skills:reject',
  'approvals:decide',
  'rules:update',
  'rules:revoke',
  'sessions:end',
  'network:addRule',
  'network:removeRule',
  'network:addHost',
  'network:removeHost'
])

describe.skipIf(skip !== undefined)(`known secrets reach no record, IPC answer or event${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let home: ReturnType<typeof makeTempDir>
  let running: RunningConsole
  let scenario: SecretsScenario
  const published: { channel: string; payload: unknown }[] = []
  const logged: unknown[] = []

  beforeAll(async () => {
    home = makeTempDir('airlock-secrets-scan-', { outsideTmp: true })
    // Whatever the process prints to its console is a log too.
    for (const method of ['error', 'warn', 'log', 'info'] as const) vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args))
    running = await serve({
      home: home.path,
      port: 0,
      gatewayPort: 0,
      rendererDir: resolve(__dirname, '../../out/renderer'),
      open: false,
      print: () => undefined,
      logError: (message, error) => void logged.push({ message, error: error instanceof Error ? { message: error.message, stack: error.stack } : error })
    })
    running.host.events.subscribe((channel, payload) => published.push({ channel, payload }))
    scenario = await runSecretsScenario(running)
  }, 300_000)

  afterAll(async () => {
    await scenario?.close()
    await running?.stop()
    vi.restoreAllMocks()
    home?.remove()
  })

  const call = async <T>(channel: string, input: unknown): Promise<T> => {
    const result = await running.host.dispatch(`airlock:${channel}`, input, ctx)
    if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`)
    return result.value as T
  }
  /** `where: names` for each place holding any secret, so a failure says exactly where. */
  const leaksIn = (places: { where: string; value: unknown }[]): string[] => {
    const secrets = secretValues(scenario.tokens)
    return places.flatMap(({ where, value }) => {
      const found = secretsIn(typeof value === 'string' ? value : JSON.stringify(value), secrets)
      return found.length > 0 ? [`${where}: ${found.join(', ')}`] : []
    })
  }

  it('ran the scenario for real: agents got their results, secrets redacted from them, and the record has them all', async () => {
    const { results } = scenario
    expect(results.commandArgs!.structuredContent).toMatchObject({ status: 'success', data: { exitCode: 4 } })
    expect(JSON.stringify(results.commandOutput!.structuredContent.data)).toContain('[redacted]')
    expect(results.codeArgs!.structuredContent).toMatchObject({ status: 'success', data: { exitCode: 0 } })
    expect(results.errorQuote!.structuredContent.status).toBe('error')
    expect(JSON.stringify(results.upstreamEnv!.structuredContent)).toContain('API_TOKEN')
    expect(JSON.stringify(results.roleUpstreamEnv!.structuredContent)).toContain('VAULT_TOKEN')
    expect(results.approvedOnce!.structuredContent.status).toBe('success')
    expect(results.denied!.structuredContent.status).toBe('blocked')
    // 200 000 bytes of a secret line, each line now `[redacted]`: still over the 64 KiB kept inline.
    expect((results.bigOutput!.structuredContent.data as { stdout: string }).stdout).toMatch(/^(?:\[redacted\]\n){7000,}/)
    // What commands, code and upstream servers printed reached the agents with known secrets redacted (issue 10).
    const printed = ['commandArgs', 'commandOutput', 'bigOutput', 'codeArgs', 'upstreamEnv', 'upstreamEcho', 'roleUpstreamEnv', 'roleCommand']
    const known: Record<string, string> = { ...canaries }
    expect(printed.flatMap((name) => secretsIn(JSON.stringify(results[name]!.structuredContent.data), known).map((secret) => `${name}: ${secret}`))).toEqual([])
    const rows = await call<{ rows: unknown[] }>('history:list', {})
    expect(rows.rows.length).toBe(Object.keys(results).length)
  })

  it('keeps them out of every table but the ones that store what the operator gave, which hold exactly that', () => {
    const db = running.host.store.db
    const tables = (db.prepare(`select name from sqlite_master where type = 'table' order by name`).all() as { name: string }[]).map((t) => t.name)
    expect(tables).toEqual(expect.arrayContaining(['action_calls', 'approvals', 'events', 'handles', 'rules', 'sessions', ...Object.keys(storedAsGiven)]))
    const secrets = secretValues(scenario.tokens)
    const dump = (table: string) =>
      (db.prepare(`select * from "${table.replaceAll('"', '""')}"`).all() as Record<string, unknown>[]).map((row) =>
        Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Buffer.isBuffer(value) ? value.toString('latin1') : value]))
      )
    const leaks = tables.filter((table) => !(table in storedAsGiven)).flatMap((table) => leaksIn([{ where: `table ${table}`, value: dump(table) }]))
    expect(leaks).toEqual([])
    for (const [table, expected] of Object.entries(storedAsGiven))
      expect(secretsIn(JSON.stringify(dump(table)), secrets).sort(), `table ${table}`).toEqual([...expected].sort())
    // The event log is not empty: the scan above read real rows.
    expect((db.prepare('select count(*) as n from events').get() as { n: number }).n).toBeGreaterThan(10)
  })

  it('keeps them out of every file under the home: logs, .exec_history, execution areas, integrations', () => {
    const files: string[] = []
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        const stat = lstatSync(path)
        if (stat.isDirectory()) walk(path)
        // The database is read table by table above (it stores the operator's own secrets).
        else if (stat.isFile() && !/^airlock\.db(?:-wal|-shm|-journal)?$/.test(name)) files.push(path)
      }
    }
    walk(home.path)
    const relativeNames = files.map((file) => relative(home.path, file))
    expect(relativeNames).toEqual(expect.arrayContaining(['workspaces/coder/.exec_history', 'workspaces/reviewer/.exec_history']))
    expect(relativeNames.some((name) => name.startsWith('logs/'))).toBe(true)
    expect(leaksIn(files.map((file) => ({ where: relative(home.path, file), value: readFileSync(file, 'latin1') })))).toEqual([])
  })

  it('keeps them out of everything published to consoles and everything logged', () => {
    // The settings view of `code_execution.providers` is the operator's setting as saved: its
    // candidate config is no secret field (see configCanary), and the Providers view writes the
    // order back with each config kept. Everything else published must hold no secret.
    const isProviderOrder = (event: { channel: string; payload: unknown }) =>
      event.channel === 'airlock:settings:changed' && (event.payload as { key?: string }).key === 'code_execution.providers'
    expect(published.filter(isProviderOrder).map((event) => JSON.stringify(event).includes(configCanary))).toEqual([true])
    const channels = new Set(published.map((event) => event.channel))
    for (const channel of [
      'airlock:resources:event',
      'airlock:history:changed',
      'airlock:history:output',
      'airlock:approvals:changed',
      'airlock:agents:changed',
      'airlock:sessions:changed'
    ])
      expect(channels).toContain(channel)
    expect({
      published: leaksIn(
        published.filter((event) => !isProviderOrder(event)).map((event, index) => ({ where: `published #${index} ${event.channel}`, value: event.payload }))
      ),
      logged: leaksIn(logged.map((entry, index) => ({ where: `logged #${index}`, value: entry })))
    }).toEqual({ published: [], logged: [] })
  })

  it('keeps them out of the answer to every read call a console makes', async () => {
    const answers: { where: string; value: unknown }[] = []
    const read = async <T>(channel: string, input: unknown): Promise<T> => {
      const value = await call<T>(channel, input)
      answers.push({ where: `${channel} ${JSON.stringify(input)}`, value })
      return value
    }
    const agentIds = (await read<{ id: string }[]>('agents:list', {})).map((agent) => agent.id)
    expect(agentIds.sort()).toEqual(['coder', 'reviewer'])
    await read('agents:listRoles', {})
    for (const agentId of agentIds) {
      await read('agents:get', { agentId })
      await read('agents:connection', { agentId })
      await read('agents:sessions', { agentId })
      await read('skills:list', { agentId })
      await read('workspace:recent', { agentId, limit: 200 })
      const { checkpoints } = await read<{ checkpoints: { id: string }[] }>('checkpoints:list', { agentId, limit: 500 })
      for (const { id } of checkpoints) await read('checkpoints:detail', { id })
      await read('timeline:list', { agentId, limit: 200 })
      // The whole workspace as the browser opens it: every folder listed, every file read.
      const folders = ['']
      while (folders.length > 0) {
        const path = folders.shift()!
        const listing = await read<{ entries: { path: string; kind: string }[] }>('workspace:list', { agentId, path })
        for (const entry of listing.entries) {
          if (entry.kind === 'directory') folders.push(entry.path)
          else if (entry.kind === 'file') await read('workspace:read', { agentId, path: entry.path })
        }
      }
    }
    await read('system:info', {})
    // The operator's provider order is answered as saved, its candidate config included (see
    // configCanary): that value is taken out of those answers; nothing else in them may be a secret.
    const asSaved = (value: unknown) => {
      const text = JSON.stringify(value)
      expect(text).toContain(configCanary)
      return text.replaceAll(configCanary, '')
    }
    answers.push({ where: 'settings:list {}', value: asSaved(await call('settings:list', {})) })
    for (const key of settingKeys) {
      const value = await call('settings:get', { key })
      answers.push({ where: `settings:get ${key}`, value: key === 'code_execution.providers' ? asSaved(value) : value })
    }
    const handles = await read<{ handleId: string; providerId: string; meta: Record<string, unknown> }[]>('resources:list', {})
    // The library caller's requirement was served by the configured candidate, with its config.
    expect(handles.find((h) => h.handleId === scenario.configHandleId)).toMatchObject({
      providerId: 'bubblewrap',
      meta: { selectedCandidate: { providerId: 'bubblewrap', index: 0 } }
    })
    for (const { handleId } of handles) await read('resources:checkHealth', { handleId })
    await read('resources:recentEvents', { limit: 500 })
    await read('providers:list', {})
    await read('providers:images', {})
    await read('doctor:latest', {})
    await read('network:listRules', {})
    await read('network:listHosts', {})
    const historyIds: string[] = []
    let cursor: number | undefined
    do {
      const page = await read<{ rows: { id: string }[]; nextCursor?: number }>('history:list', cursor ? { cursor } : {})
      historyIds.push(...page.rows.map((row) => row.id))
      cursor = page.nextCursor
    } while (cursor !== undefined)
    for (const id of historyIds) await read('history:detail', { id })
    for (const id of historyIds) await read('history:live', { id })
    // What each call changed in its workspace, as diffs (null for a call that changed nothing).
    for (const id of historyIds) await read('checkpoints:detail', { id })
    await read('history:verify', {})
    await read('history:count', {})
    await read('history:usage', {})
    for (const agentId of agentIds) await read('history:usage', { agentId })
    const approvals = await read<{ id: string }[]>('approvals:list', { status: 'all' })
    expect(approvals.map((item) => item.id)).toEqual(expect.arrayContaining([scenario.approvals.ruled, scenario.approvals.denied]))
    for (const { id } of approvals) await read('approvals:get', { id })
    await read('rules:list', { all: true })
    await read('sessions:list', {})

    // Every read call of the contract was made above; a new one must be added here.
    const made = new Set(answers.map((answer) => answer.where.split(' ')[0]!))
    const calls = Object.entries(airlockContract).flatMap(([namespace, spec]) => Object.keys(spec.calls).map((name) => `${namespace}:${name}`))
    expect(calls.filter((name) => !made.has(name) && !changingCalls.has(name))).toEqual([])
    expect(leaksIn(answers)).toEqual([])
  }, 120_000)

  it('leaves nothing for a history search to find: the search index holds no known secret', async () => {
    const found: string[] = []
    for (const [name, value] of Object.entries(canaries)) {
      const { count } = await call<{ count: number }>('history:count', { text: value })
      if (count > 0) found.push(`${name}: ${count} calls`)
    }
    expect(found).toEqual([])
    // The search works: the same kind of word from the same calls is found.
    expect((await call<{ count: number }>('history:count', { text: 'printf' })).count).toBeGreaterThan(0)
  })
})
