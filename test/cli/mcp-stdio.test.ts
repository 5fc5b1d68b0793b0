import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SettingsService } from '../../src/main/console/settings-service'
import { openStore } from '../../src/main/store'
import { callTool, startServeWithGateway } from '../support/mcp-gateway-client'
import { airlockBin, runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

// `airlock mcp-stdio` as a stdio MCP client launches it: the SDK's StdioClientTransport spawns the
// real CLI, which relays to the gateway of a real `airlock serve` on the same home.

const lines = (text: string) => text.split('\n').filter((line) => line.length > 0)

describe('airlock mcp-stdio', { timeout: 120_000 }, () => {
  let dir: ReturnType<typeof makeTempDir>
  let home: string
  let served: Awaited<ReturnType<typeof startServeWithGateway>>
  const tokens: Record<string, string> = {}

  /** A stdio client of the bridge for one agent; the token comes in the environment or a file. */
  const stdioClient = async (agentId: string, how: { env?: Record<string, string>; args?: string[] }) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [airlockBin, 'mcp-stdio', '--agent', agentId, '--home', home, ...(how.args ?? [])],
      env: { PATH: process.env.PATH ?? '', ...how.env },
      stderr: 'pipe'
    })
    let stderr = ''
    transport.stderr?.on('data', (chunk) => (stderr += chunk))
    const client = new Client({ name: 'stdio-test-agent', version: '1.0.0' })
    await client.connect(transport)
    return { client, stderr: () => stderr, close: () => client.close() }
  }
  const sessionsOf = (agentId: string) => {
    const store = openStore(join(home, 'airlock.db'))
    try {
      return store.sessions.listByAgent(agentId)
    } finally {
      store.close()
    }
  }

  beforeAll(async () => {
    dir = makeTempDir('airlock-cli-mcp-stdio-')
    home = join(dir.path, 'home')
    writeFileSync(join(dir.path, 'profile.json'), JSON.stringify({ capabilities: ['files'], ask: 'never' }))
    for (const id of ['coder', 'other']) {
      const created = runAirlock(['agent', 'create', id, '--json', '--profile', join(dir.path, 'profile.json'), '--home', home])
      tokens[id] = (JSON.parse(created.stdout) as { token: string }).token
    }
    // Short idle timeout, so the bridge's reopening of an ended session can be seen.
    const store = openStore(join(home, 'airlock.db'))
    new SettingsService(store.settings).set('gateway.idle_timeout_seconds', 10)
    store.close()
    served = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home])
  })
  afterAll(async () => {
    expect(await served?.stop()).toBe(0)
    dir?.remove()
  })

  it('with AIRLOCK_TOKEN: lists tools, writes and reads; closing stdin ends the gateway session', async () => {
    const agent = await stdioClient('coder', { env: { AIRLOCK_TOKEN: tokens.coder! } })
    try {
      expect(agent.client.getServerVersion()).toMatchObject({ name: 'airlock' })
      expect((await agent.client.listTools()).tools.map((t) => t.name).sort()).toEqual([
        'edit_file',
        'list_directory',
        'read_file',
        'search_files',
        'write_file'
      ])
      expect((await callTool(agent.client, 'write_file', { path: 'via-stdio.txt', content: 'relayed' })).structuredContent).toMatchObject({
        ok: true,
        status: 'success'
      })
      expect((await callTool(agent.client, 'read_file', { path: 'via-stdio.txt' })).content).toEqual([{ type: 'text', text: 'relayed' }])
      expect(readFileSync(join(home, 'workspaces', 'coder', 'via-stdio.txt'), 'utf8')).toBe('relayed')
    } finally {
      await agent.close()
    }
    await expect.poll(() => sessionsOf('coder')[0]?.endReason, { timeout: 10_000 }).toBe('closed_by_client')
    expect(sessionsOf('coder')[0]?.transport).toBe('mcp-http')
  })

  it('with --token-file; after the gateway ended the idle session, the bridge opens a new one and the call still works', async () => {
    mkdirSync(join(dir.path, 'secrets'), { mode: 0o700 })
    const tokenFile = join(dir.path, 'secrets', 'coder.token')
    writeFileSync(tokenFile, `${tokens.coder}\n`, { mode: 0o600 })
    const agent = await stdioClient('coder', { args: ['--token-file', tokenFile] })
    try {
      expect((await callTool(agent.client, 'list_directory', { path: '.' })).structuredContent).toMatchObject({ ok: true })
      const first = sessionsOf('coder')[0]!
      await expect.poll(() => sessionsOf('coder').find((s) => s.id === first.id)?.endReason, { timeout: 20_000, interval: 500 }).toBe('idle_timeout')
      expect((await callTool(agent.client, 'read_file', { path: 'via-stdio.txt' })).structuredContent).toMatchObject({ ok: true, data: { content: 'relayed' } })
      expect(sessionsOf('coder')[0]!.id).not.toBe(first.id)
      expect(agent.stderr()).toMatch(/the gateway had ended the session; a new one was opened/)
    } finally {
      await agent.close()
    }
  }, 60_000)

  it('after `airlock serve` restarts (on another port), the bridge resumes the same session rather than opening a new one', async () => {
    const restartHome = join(dir.path, 'restart-home')
    const created = JSON.parse(
      runAirlock(['agent', 'create', 'steady', '--json', '--profile', join(dir.path, 'profile.json'), '--home', restartHome]).stdout
    ) as { token: string }
    let serving = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', restartHome])
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [airlockBin, 'mcp-stdio', '--agent', 'steady', '--home', restartHome],
      env: { PATH: process.env.PATH ?? '', AIRLOCK_TOKEN: created.token },
      stderr: 'pipe'
    })
    let stderr = ''
    transport.stderr?.on('data', (chunk) => (stderr += chunk))
    const client = new Client({ name: 'stdio-test-agent', version: '1.0.0' })
    await client.connect(transport)
    const sessions = () => {
      const store = openStore(join(restartHome, 'airlock.db'))
      try {
        return store.sessions.listByAgent('steady')
      } finally {
        store.close()
      }
    }
    try {
      expect((await callTool(client, 'write_file', { path: 'before.txt', content: 'kept' })).structuredContent.status).toBe('success')
      expect(await serving.stop()).toBe(0)
      serving = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', restartHome])
      expect((await callTool(client, 'read_file', { path: 'before.txt' })).content).toEqual([{ type: 'text', text: 'kept' }])
      expect(stderr).toMatch(/the gateway restarted; the session was resumed/)
      expect(sessions()).toHaveLength(1)
      expect(sessions()[0]?.endedAt).toBeNull()
    } finally {
      await client.close()
      expect(await serving.stop()).toBe(0)
    }
  })

  const refusals: [string, string[], Record<string, string>, number, RegExp][] = [
    ["another agent's token", [], { AIRLOCK_TOKEN: 'other' }, 1, /^airlock: The token belongs to another agent, not coder; use coder's own token\.$/],
    ['a wrong token', [], { AIRLOCK_TOKEN: 'alk_not-a-real-token' }, 1, /^airlock: The token is not valid for any enabled agent/],
    ['no token at all', [], {}, 2, /^airlock: mcp-stdio needs the agent's token in AIRLOCK_TOKEN or in a file named by --token-file$/],
    ['a token on the command line', ['--token', 'TOKEN'], {}, 2, /^airlock: --token is not accepted: a token on the command line is visible to every user/],
    [
      'a token file that does not exist',
      ['--token-file', '/nonexistent/token'],
      {},
      1,
      /^airlock: Cannot read the token file \/nonexistent\/token \(ENOENT\)\.$/
    ],
    ['an agent that does not exist', ['--agent', 'ghost'], { AIRLOCK_TOKEN: 'coder' }, 1, /^airlock: There is no agent ghost\.$/]
  ]
  for (const [name, args, env, code, message] of refusals) {
    it(`refuses ${name}: exit ${code}, one line on stderr, nothing on stdout`, () => {
      const named = Object.fromEntries(Object.entries(env).map(([key, value]) => [key, tokens[value] ?? value]))
      const agentArgs = args.includes('--agent') ? args : ['--agent', 'coder', ...args]
      const result = runAirlock(['mcp-stdio', ...agentArgs, '--home', home], { AIRLOCK_TOKEN: '', ...named })
      expect(result.code).toBe(code)
      expect(lines(result.stderr)).toEqual([expect.stringMatching(message)])
      expect(result.stdout).toBe('')
      for (const token of Object.values(tokens)) expect(result.stderr).not.toContain(token)
    })
  }

  it('a client that cannot be served hears why: its initialize is answered with the reason (SDK stdio client)', async () => {
    const other = join(dir.path, 'gatewayless-home')
    writeFileSync(join(dir.path, 'p2.json'), '{}')
    const created = JSON.parse(runAirlock(['agent', 'create', 'alone', '--json', '--profile', join(dir.path, 'p2.json'), '--home', other]).stdout) as {
      token: string
    }
    const connect = async (agentId: string, token: string, where: string) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [airlockBin, 'mcp-stdio', '--agent', agentId, '--home', where],
        env: { PATH: process.env.PATH ?? '', AIRLOCK_TOKEN: token },
        stderr: 'pipe'
      })
      const client = new Client({ name: 'stdio-test-agent', version: '1.0.0' })
      return client.connect(transport).finally(() => client.close())
    }
    await expect(connect('coder', 'alk_not-a-real-token', home)).rejects.toThrow(/Airlock: The token is not valid for any enabled agent/)
    await expect(connect('alone', created.token, other)).rejects.toThrow(/Airlock: No agent gateway is running on .*; start `airlock serve`/)
  })

  it('a line that is not JSON is answered -32700, one that is not JSON-RPC -32600; ending prints no reconnection noise', async () => {
    const child = spawn(process.execPath, [airlockBin, 'mcp-stdio', '--agent', 'coder', '--home', home], {
      env: { PATH: process.env.PATH ?? '', AIRLOCK_TOKEN: tokens.coder! },
      stdio: ['pipe', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.stdin.write('this is not json\n')
    await expect.poll(() => lines(stdout).length, { timeout: 10_000 }).toBe(1)
    child.stdin.write(JSON.stringify({ hello: 'world' }) + '\n')
    await expect.poll(() => lines(stdout).length, { timeout: 10_000 }).toBe(2)
    const [notJson, notRpc] = lines(stdout).map((line) => JSON.parse(line) as { id: unknown; error: { code: number } })
    expect([notJson, notRpc]).toEqual([
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32700 }) }),
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) })
    ])
    // A real session, then the end of stdin.
    child.stdin.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }
      }) + '\n'
    )
    await expect.poll(() => lines(stdout).length, { timeout: 10_000 }).toBe(3)
    // Initialized: the bridge opens its GET stream, which the gateway ends when the session closes.
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n')
    await new Promise((resolve) => setTimeout(resolve, 500))
    child.stdin.end()
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0)
    expect(stderr).not.toMatch(/reconnection/i)
  })

  it('no gateway running on the home: exit 1, says to start one', () => {
    const other = join(dir.path, 'other-home')
    writeFileSync(join(dir.path, 'p.json'), '{}')
    const created = JSON.parse(runAirlock(['agent', 'create', 'lonely', '--json', '--profile', join(dir.path, 'p.json'), '--home', other]).stdout) as {
      token: string
    }
    const result = runAirlock(['mcp-stdio', '--agent', 'lonely', '--home', other], { AIRLOCK_TOKEN: created.token })
    expect(result.code).toBe(1)
    expect(lines(result.stderr)).toEqual([`airlock: No agent gateway is running on ${other}; start \`airlock serve\` or the desktop app on this home first.`])
  })
})
