import { writeFileSync } from 'node:fs'
import { request as httpRequest, type ClientRequest } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HistoryRow } from '@shared/ipc/history'
import { startAgentGateway, type AgentGateway } from '../../src/main/gateway'
import { createHost, gatewayDeps, type Host } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import type { Socket } from 'node:net'
import { callTool, connectAgent, mcpHeaders, rawRequest, rpcError, socketKeepingFetch, startServeWithGateway } from '../support/mcp-gateway-client'
import { runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

// Long work through the gateway, as real clients do it (issue 25): the SDK client with a request
// timeout shorter than the command and `resetTimeoutOnProgress`; a client whose connection drops
// mid-run and resumes with `Last-Event-ID`; a client that sends the same call again. A real host,
// the real gateway on a loopback port, commands in real bubblewrap.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

/** One SSE event as it came over the wire. */
type SseEvent = { id?: string; retry?: string; data: string }

/**
 * Opens an SSE response (a POST that answers with a stream, or a GET) and collects its events;
 * `drop()` cuts the connection the way a network blip does.
 */
function openStream(url: string, options: { method: 'POST' | 'GET'; headers: Record<string, string>; body?: string }) {
  const events: SseEvent[] = []
  let request: ClientRequest
  let status = 0
  let ended = false
  const done = new Promise<void>((resolve, reject) => {
    const target = new URL(url)
    request = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: options.method, headers: options.headers }, (response) => {
      status = response.statusCode ?? 0
      let buffer = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        buffer += chunk
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          if (block.startsWith(':')) continue // keep-alive comment
          const event: SseEvent = { data: '' }
          for (const line of block.split('\n')) {
            const [field, ...rest] = line.split(':')
            const value = rest.join(':').replace(/^ /, '')
            if (field === 'id') event.id = value
            else if (field === 'retry') event.retry = value
            else if (field === 'data') event.data += value
          }
          events.push(event)
        }
      })
      response.on('end', () => {
        ended = true
        resolve()
      })
      response.on('error', () => resolve())
    })
    request.on('error', (error) => (ended ? resolve() : reject(error)))
    request.end(options.body)
  })
  return {
    events,
    done,
    status: () => status,
    drop: () => request.destroy()
  }
}

describe.skipIf(skip !== undefined)(`long work through the gateway${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let gateway: AgentGateway
  let token: string

  const historyOf = (agentId: string): HistoryRow[] => host.agents.history.list({ agentId, limit: 500 }).rows

  /** A session opened by hand at protocol 2025-11-25 (the version whose streams are resumable). */
  const openRawSession = async () => {
    const init = await rawRequest(gateway.url, {
      headers: mcpHeaders(token),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'dropper', version: '1' } }
      })
    })
    expect(init.status).toBe(200)
    const headers = mcpHeaders(token, { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' })
    expect((await rawRequest(gateway.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status).toBe(202)
    return { headers, close: () => rawRequest(gateway.url, { method: 'DELETE', headers }) }
  }

  beforeAll(async () => {
    dir = makeTempDir('airlock-long-work-', { outsideTmp: true })
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    token = host.agents.service.create('worker', { profile: { capabilities: ['files', 'shell'], providers: ['bubblewrap'], ask: 'never' } }).token
    gateway = await startAgentGateway({ deps: gatewayDeps(host), port: 0, logError: () => undefined })
  })
  afterAll(async () => {
    await gateway?.close()
    await host?.dispose()
    dir?.remove()
  })

  it("tools/list describes every input field of run_command, and run_code offers only the agent's runtimes", async () => {
    const coderToken = host.agents.service.create('pycoder', {
      profile: { capabilities: ['shell', 'python'], runtimes: ['python'], providers: ['bubblewrap'], ask: 'never' }
    }).token
    const coder = await connectAgent(gateway.url, coderToken)
    try {
      const { tools } = await coder.client.listTools()
      const runCommand = tools.find((tool) => tool.name === 'run_command')!
      for (const field of ['command', 'cwd', 'timeoutSeconds'])
        expect((runCommand.inputSchema.properties as Record<string, { description?: string }>)[field]?.description).toMatch(/\w/)
      const runCode = tools.find((tool) => tool.name === 'run_code')!
      expect((runCode.inputSchema.properties as Record<string, { enum?: string[] }>).language?.enum).toEqual(['python'])
    } finally {
      await coder.close()
    }
  })

  it('an idle session gives back its warm sandbox after gateway.idle_release_seconds and keeps its working directory', async () => {
    host.settings.set('gateway.idle_release_seconds', 10)
    const sweeping = await startAgentGateway({ deps: gatewayDeps(host), port: 0, logError: () => undefined, sweepMs: 250 })
    const worker = await connectAgent(sweeping.url, token)
    try {
      const sessionId = worker.transport.sessionId!
      expect((await callTool(worker.client, 'run_command', { command: 'mkdir -p deep/er && cd deep/er && pwd' })).structuredContent.status).toBe('success')
      expect(host.agents.dispatcher.sessions.sessions()).toContain(sessionId)
      await expect.poll(() => host.agents.dispatcher.sessions.sessions().includes(sessionId), { timeout: 30_000, interval: 500 }).toBe(false)
      const after = await callTool(worker.client, 'run_command', { command: 'pwd' })
      expect(after.structuredContent).toMatchObject({ status: 'success', data: { cwd: 'deep/er' } })
      expect(sweeping.sessions().map((session) => session.sessionId)).toContain(sessionId)
    } finally {
      await worker.close()
      await sweeping.close()
      host.settings.reset('gateway.idle_release_seconds')
    }
  }, 60_000)

  it('40 sessions of one agent opened and left idle: at the cap the least recently used idle one goes, never the one with a call in flight', async () => {
    const busy = await openRawSession()
    const call = openStream(gateway.url, {
      method: 'POST',
      headers: busy.headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'run_command', arguments: { command: 'sleep 4; echo kept' } } })
    })
    await expect.poll(() => call.events.length, { timeout: 10_000 }).toBeGreaterThan(0)
    const opened = []
    for (let i = 0; i < 40; i++) opened.push(await openRawSession())
    const open = new Set(gateway.sessions().map((session) => session.sessionId))
    expect(open.has(busy.headers['mcp-session-id']!)).toBe(true)
    expect(open.size).toBe(host.settings.get('gateway.max_sessions_per_agent'))
    // The newest are the ones kept besides the busy one.
    expect(opened.slice(-15).every((session) => open.has(session.headers['mcp-session-id']!))).toBe(true)
    await call.done
    expect(call.events.some((event) => event.data.includes('kept'))).toBe(true)
    for (const session of [busy, ...opened.slice(-15)]) await session.close()
  }, 60_000)

  it('a 90 s command completes through a client with a 20 s request timeout that resets on progress; progress quotes the last line printed', async () => {
    const worker = await connectAgent(gateway.url, token)
    try {
      const progress: { at: number; message: string }[] = []
      const command = 'for i in $(seq 1 90); do echo "step $i"; sleep 1; done; echo finished'
      const result = await callTool(
        worker.client,
        'run_command',
        { command },
        { timeout: 20_000, resetTimeoutOnProgress: true, onprogress: (p) => progress.push({ at: Date.now(), message: p.message ?? '' }) }
      )
      expect(result.structuredContent).toMatchObject({ status: 'success', data: { exitCode: 0 } })
      expect((result.structuredContent.data as { stdout: string }).stdout).toMatch(/step 90\nfinished\n$/)
      // Every 4 s from start to result: over 90 s that is at least 18 (and no gap near the timeout).
      expect(progress.length).toBeGreaterThanOrEqual(18)
      const gaps = progress.slice(1).map((p, i) => p.at - progress[i]!.at)
      expect(Math.max(...gaps)).toBeLessThan(20_000)
      expect(progress.some((p) => /^running for \d+ s — last output: step \d+$/.test(p.message))).toBe(true)
      // Without resetting, the same client gives up at its timeout: progress is what made the difference.
      await expect(callTool(worker.client, 'run_command', { command: 'sleep 9; echo late' }, { timeout: 3000, onprogress: () => undefined })).rejects.toThrow(
        /timed out/i
      )
    } finally {
      await worker.close()
    }
  }, 180_000)

  it('a dropped connection does not cancel the call: the client resumes with Last-Event-ID and gets the result, run once', async () => {
    const session = await openRawSession()
    const headers = session.headers

    const command = 'sleep 3; echo "survived the drop"'
    const call = openStream(gateway.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'run_command', arguments: { command } } })
    })
    // The priming event: an id to resume from, and how long to wait before resuming.
    await expect.poll(() => call.events.length, { timeout: 10_000 }).toBeGreaterThan(0)
    const priming = call.events[0]!
    expect(priming).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{12}-\d+$/), retry: '2000', data: '' })
    call.drop()

    const resumed = openStream(gateway.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': priming.id! } })
    await expect.poll(() => resumed.events.some((event) => event.data.includes('"id":7')), { timeout: 20_000 }).toBe(true)
    resumed.drop()
    expect(resumed.status()).toBe(200)
    const result = JSON.parse(resumed.events.find((event) => event.data.includes('"id":7'))!.data) as {
      result: { structuredContent: { status: string; data: { stdout: string } } }
    }
    expect(result.result.structuredContent).toMatchObject({ status: 'success', data: { stdout: 'survived the drop\n' } })
    const rows = historyOf('worker').filter((row) => (row.inputSummary as { command?: string } | null)?.command === command)
    expect(rows).toHaveLength(1)
    expect(rows[0]!.status).toBe('success')

    // The call has ended: a later resume is a finite replay (the result again, then the end of the
    // stream), and a resume from its last event is 204 — nothing holds the client's connection.
    const again = openStream(gateway.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': priming.id! } })
    await again.done
    expect(again.status()).toBe(200)
    const last = again.events.at(-1)!
    expect(last.data).toContain('"id":7')
    const nothingMore = await rawRequest(gateway.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': last.id! } })
    expect(nothingMore.status).toBe(204)

    // A forged id, or one of another session, is refused with why; nothing of the session leaks.
    for (const forged of ['000000000000-1', `${priming.id!.split('-')[0]}-999999`, 'not-an-id']) {
      const refused = await rawRequest(gateway.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': forged } })
      expect(refused.status).toBe(400)
      expect(rpcError(refused.body)).toMatchObject({
        message: expect.stringContaining('no event of this session has that id'),
        data: { reason: 'unknown_event_id' }
      })
    }
    await session.close()
  }, 60_000)

  it('the SDK client whose socket is cut mid-run resumes by itself and gets the result; the call ran once', async () => {
    const sockets: Socket[] = []
    const worker = await connectAgent(gateway.url, token, { fetch: socketKeepingFetch(sockets) })
    try {
      const command = 'sleep 4; echo "after the cut"'
      // A client can resume only once it holds an event id: cut when the priming event has arrived.
      let resumable = false
      const pending = callTool(worker.client, 'run_command', { command }, { timeout: 60_000, onresumptiontoken: () => (resumable = true) })
      await expect
        .poll(() => resumable && historyOf('worker').some((row) => (row.inputSummary as { command?: string } | null)?.command === command), { timeout: 10_000 })
        .toBe(true)
      for (const socket of sockets) socket.destroy()
      const result = await pending
      expect(result.structuredContent).toMatchObject({ status: 'success', data: { stdout: 'after the cut\n' } })
      const rows = historyOf('worker').filter((row) => (row.inputSummary as { command?: string } | null)?.command === command)
      expect(rows.map((row) => row.status)).toEqual(['success'])
    } finally {
      await worker.close()
    }
  }, 60_000)

  it('the same call sent again after its stream was lost joins the running one: one run, one history row; identical calls sent on purpose both run', async () => {
    const session = await openRawSession()
    const command = 'echo "run $RANDOM$RANDOM"; sleep 3'
    const body = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run_command', arguments: { command } } })
    const first = openStream(gateway.url, { method: 'POST', headers: session.headers, body: body(11) })
    await expect.poll(() => first.events.length, { timeout: 10_000 }).toBeGreaterThan(0)
    first.drop()
    await new Promise((resolve) => setTimeout(resolve, 300))
    const again = openStream(gateway.url, { method: 'POST', headers: session.headers, body: body(12) })
    await again.done
    const result = JSON.parse(again.events.find((event) => event.data.includes('"id":12'))!.data) as {
      result: { structuredContent: { status: string; data: { stdout: string } } }
    }
    expect(result.result.structuredContent.status).toBe('success')
    const runs = () => historyOf('worker').filter((row) => (row.inputSummary as { command?: string } | null)?.command === command)
    expect(runs()).toHaveLength(1)

    const worker = await connectAgent(gateway.url, token)
    try {
      const both = await Promise.all([callTool(worker.client, 'run_command', { command }), callTool(worker.client, 'run_command', { command })])
      expect(both.map((r) => r.structuredContent.status)).toEqual(['success', 'success'])
      expect(runs()).toHaveLength(3)
    } finally {
      await worker.close()
      await session.close()
    }
  }, 30_000)
})

describe.skipIf(skip !== undefined)(`MCP sessions across a restart of Airlock${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  afterAll(() => dir?.remove())

  it('after a restart, the same Mcp-Session-Id goes on in the same working directory with the same taint; a session the client closed does not come back', async () => {
    dir = makeTempDir('airlock-durable-sessions-', { outsideTmp: true })
    const start = async () => {
      const host = createHost({ home: dir.path, logError: () => undefined })
      await host.recovered
      return { host, gateway: await startAgentGateway({ deps: gatewayDeps(host), port: 0, logError: () => undefined }) }
    }
    const first = await start()
    const { token } = first.host.agents.service.create('durable', {
      profile: {
        capabilities: ['files', 'shell'],
        providers: ['bubblewrap'],
        ask: 'never',
        classificationCeiling: 'CONFIDENTIAL',
        labels: { paths: { 'notes/**': 'CONFIDENTIAL' } }
      }
    })
    const open = async (url: string) => {
      const init = await rawRequest(url, {
        headers: mcpHeaders(token),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'durable', version: '1' } }
        })
      })
      const headers = mcpHeaders(token, { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' })
      await rawRequest(url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
      return headers
    }
    const call = async (url: string, headers: Record<string, string>, id: number, command: string) => {
      const answer = await rawRequest(url, {
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run_command', arguments: { command } } })
      })
      const data = answer.body.split('\n').find((line) => line.startsWith('data: {'))
      return {
        status: answer.status,
        body: answer.body,
        result: data
          ? (JSON.parse(data.slice(6)) as { result?: { structuredContent: { status: string; data: { stdout: string; cwd: string } } } }).result
          : undefined
      }
    }
    const kept = await open(first.gateway.url)
    const closed = await open(first.gateway.url)
    expect((await call(first.gateway.url, kept, 2, 'mkdir -p deep/er notes && echo secret > notes/n')).result?.structuredContent.status).toBe('success')
    expect((await call(first.gateway.url, kept, 3, 'cat notes/n')).result?.structuredContent.data.stdout).toBe('secret\n')
    expect((await call(first.gateway.url, kept, 7, 'cd deep/er')).result?.structuredContent.data.cwd).toBe('deep/er')
    await rawRequest(first.gateway.url, { method: 'DELETE', headers: closed })
    await first.gateway.close()
    await first.host.dispose()

    const second = await start()
    try {
      const after = await call(second.gateway.url, kept, 4, 'pwd')
      expect(after.status, after.body).toBe(200)
      expect(after.result?.structuredContent).toMatchObject({ status: 'success', data: { cwd: 'deep/er' } })
      expect(second.host.store.sessions.taint(kept['mcp-session-id']!)).toBe('CONFIDENTIAL')
      expect(second.host.store.sessions.get(kept['mcp-session-id']!)).toMatchObject({ endedAt: null })
      // Events of the process that ended are gone: a resume from one says what happened.
      const stale = await rawRequest(second.gateway.url, {
        method: 'GET',
        headers: { ...kept, accept: 'text/event-stream', 'last-event-id': '0123456789ab-3' }
      })
      expect([stale.status, rpcError(stale.body).data?.reason]).toEqual([400, 'interrupted_by_restart'])
      // Closed by its client: it stays closed, and the 404 says how to go on.
      const gone = await call(second.gateway.url, closed, 5, 'pwd')
      expect(gone.status).toBe(404)
      expect(rpcError(gone.body).message).toMatch(/start a new session with initialize/)
      // Another agent's token cannot resume it.
      const { token: other } = second.host.agents.service.create('other', { profile: { capabilities: ['files'], ask: 'never' } })
      const foreign = await rawRequest(second.gateway.url, {
        headers: { ...kept, authorization: `Bearer ${other}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' })
      })
      expect(foreign.status).toBe(404)
    } finally {
      await second.gateway.close()
      await second.host.dispose()
    }
  }, 60_000)
})

describe.skipIf(skip !== undefined)(`a session across \`airlock serve\` killed mid-call${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('the call that was running ends interrupted; the client is told so on resumption, and the session goes on', async () => {
    const dir = makeTempDir('airlock-killed-serve-', { outsideTmp: true })
    const home = join(dir.path, 'home')
    writeFileSync(join(dir.path, 'profile.json'), JSON.stringify({ capabilities: ['files', 'shell'], providers: ['bubblewrap'], ask: 'never' }))
    const token = (
      JSON.parse(runAirlock(['agent', 'create', 'survivor', '--json', '--profile', join(dir.path, 'profile.json'), '--home', home]).stdout) as { token: string }
    ).token
    const urlOf = (line: string) => line.slice(line.indexOf('http://'))
    let serving = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home])
    try {
      let url = urlOf(serving.gatewayLine)
      const init = await rawRequest(url, {
        headers: mcpHeaders(token),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'survivor', version: '1' } }
        })
      })
      const headers = mcpHeaders(token, { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' })
      await rawRequest(url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
      const long = openStream(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_command', arguments: { command: 'sleep 60' } } })
      })
      await expect.poll(() => long.events.length, { timeout: 10_000 }).toBeGreaterThan(0)
      const primingId = long.events[0]!.id!
      serving.child.kill('SIGKILL')
      await long.done
      await new Promise((resolve) => serving.child.once('exit', resolve))

      serving = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home])
      url = urlOf(serving.gatewayLine)
      const told = await rawRequest(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': primingId } })
      expect([told.status, rpcError(told.body).data?.reason]).toEqual([400, 'interrupted_by_restart'])
      expect(rpcError(told.body).message).toMatch(/ended interrupted/)
      const next = await rawRequest(url, {
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'run_command', arguments: { command: 'echo still here' } } })
      })
      expect(next.status).toBe(200)
      expect(next.body).toContain('still here')
      const rows = JSON.parse(runAirlock(['history', '--agent', 'survivor', '--json', '--home', home]).stdout) as {
        status: string
        inputSummary: { command?: string }
      }[]
      expect(rows.find((row) => row.inputSummary.command === 'sleep 60')?.status).toBe('interrupted')
    } finally {
      await serving.stop()
      dir.remove()
    }
  }, 90_000)
})
