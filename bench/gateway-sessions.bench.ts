import { request as httpRequest } from 'node:http'
import { connect, type Socket } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { it } from 'vitest'
import { startAgentGateway } from '../src/main/gateway'
import { createHost, gatewayDeps } from '../src/main/host'
import { mcpHeaders, rawRequest } from '../test/support/mcp-gateway-client'
import { makeTempDir } from '../test/support/temp-home'
import { record, summarise, type BenchResult } from './support/measure'

/**
 * Gateway sessions over long work (issue 25), against an in-process host and gateway:
 * - `gateway.resume_ms`: a client whose stream dropped resumes with `Last-Event-ID` and gets the
 *   result of the call that finished meanwhile: from the GET leaving to the result arriving.
 *   Baseline: a plain `tools/list` POST round trip in the same session.
 * - `gateway.idle_sessions_memory_mb`: what 100 idle MCP sessions (initialized, nothing running) add
 *   to the heap after a full collection (RSS moves with the allocator, not with what is held). Reported.
 * - `gateway.unread_streams_memory_mb`: what 300 calls of 256 KiB results to a client that never
 *   reads its streams leave in memory (heap, external, and what waits unsent), after a full
 *   collection. Reported, with the per-session bound that holds it.
 */
it('gateway sessions: resume after a drop, and the memory of idle sessions', async () => {
  const dir = makeTempDir('airlock-bench-sessions-', { outsideTmp: true })
  const host = createHost({ home: dir.path, logError: () => undefined })
  await host.recovered
  host.settings.set('gateway.rate_per_minute', 100_000)
  host.settings.set('gateway.max_sessions_per_agent', 256)
  const { token } = host.agents.service.create('bench', { profile: { capabilities: ['files'], ask: 'never' } })
  const gateway = await startAgentGateway({ deps: gatewayDeps(host), port: 0, logError: () => undefined })
  const results: BenchResult[] = []
  try {
    const open = async () => {
      const init = await rawRequest(gateway.url, {
        headers: mcpHeaders(token),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } }
        })
      })
      const headers = mcpHeaders(token, { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' })
      await rawRequest(gateway.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
      return headers
    }
    const headers = await open()
    const resumes: number[] = []
    const lists: number[] = []
    await host.agents.sessions.execute({ sessionId: String(headers['mcp-session-id']), tool: 'write_file', input: { path: 'seed.txt', content: 'x' } })
    for (let i = 0; i < 65; i++) {
      const primingId = await callAndDrop(gateway.url, headers, i + 10)
      await waitForRows(host, i + 2)
      const resumeStarted = performance.now()
      await resumeUntilResult(gateway.url, { ...headers, accept: 'text/event-stream', 'last-event-id': primingId }, i + 10)
      const resumeMs = performance.now() - resumeStarted
      const listStarted = performance.now()
      await rawRequest(gateway.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1000 + i, method: 'tools/list' }) })
      const listMs = performance.now() - listStarted
      if (i >= 5) {
        resumes.push(resumeMs)
        lists.push(listMs)
      }
    }
    const r = summarise(resumes)
    const b = summarise(lists)
    results.push({
      name: 'gateway.resume_ms',
      unit: 'ms',
      median: round(r.median),
      p95: round(r.p95),
      samples: resumes.length,
      baseline: { median: round(b.median), p95: round(b.p95) },
      ratio: round(r.median / b.median)
    })

    // A client that never reads: each call's stream stays open with its result unsent.
    setFlagsFromString('--expose-gc')
    const collect = runInNewContext('gc') as () => void
    const reader = await open()
    await host.agents.sessions.execute({
      sessionId: String(reader['mcp-session-id']),
      tool: 'write_file',
      input: { path: 'big.txt', content: 'y'.repeat(256 * 1024) }
    })
    collect()
    const unreadBefore = process.memoryUsage()
    const rowsBefore = host.agents.history.list({ agentId: 'bench', limit: 500 }).rows.filter((row) => row.finishedAt !== null).length
    const sockets: Socket[] = []
    for (let i = 0; i < 300; i++)
      sockets.push(
        neverReading(gateway.url, reader, { jsonrpc: '2.0', id: 5000 + i, method: 'tools/call', params: { name: 'read_file', arguments: { path: 'big.txt' } } })
      )
    await waitForRows(host, rowsBefore + 300)
    await new Promise((resolve) => setTimeout(resolve, 500))
    collect()
    const unreadAfter = process.memoryUsage()
    const unreadMb =
      (unreadAfter.heapUsed + unreadAfter.external + unreadAfter.arrayBuffers - unreadBefore.heapUsed - unreadBefore.external - unreadBefore.arrayBuffers) /
      1024 /
      1024
    results.push({
      name: 'gateway.unread_streams_memory_mb',
      unit: 'MB',
      median: round(unreadMb),
      p95: round(unreadMb),
      samples: 1,
      note: `300 results of 256 KiB (75 MiB) to a client that never reads, its 300 streams left open; process RSS then ${round(unreadAfter.rss / 1024 / 1024)} MB`
    })
    for (const socket of sockets) socket.destroy()

    // A full collection before each reading, so what is left is what the sessions hold.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    gc()
    const before = process.memoryUsage()
    for (let i = 0; i < 100; i++) await open()
    gc()
    const after = process.memoryUsage()
    const heapMb = (after.heapUsed + after.external - before.heapUsed - before.external) / 1024 / 1024
    results.push({
      name: 'gateway.idle_sessions_memory_mb',
      unit: 'MB',
      median: round(heapMb),
      p95: round(heapMb),
      samples: 1,
      note: `100 idle sessions: heap and external after a full GC, minus before (${round((heapMb * 1024) / 100)} KiB each); process RSS then ${round(after.rss / 1024 / 1024)} MB`
    })
  } finally {
    await gateway.close()
    await host.dispose()
    dir.remove()
  }
  record('gateway-sessions', results)
}, 300_000)

/** Sends a `read_file` call on a stream, waits for its priming event, and drops the stream; returns the priming event's id. */
function callAndDrop(url: string, headers: Record<string, string>, id: number): Promise<string> {
  const target = new URL(url)
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers }, (response) => {
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        const match = /^id: (\S+)$/m.exec(chunk)
        if (match) {
          request.destroy()
          resolve(match[1]!)
        }
      })
    })
    request.on('error', () => undefined)
    request.end(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read_file', arguments: { path: 'seed.txt' } } }))
    setTimeout(() => reject(new Error('no priming event')), 10_000).unref()
  })
}

/** Sends one POST on a raw socket and never reads the answer (the kernel's and Node's buffers fill, then the server's). */
function neverReading(url: string, headers: Record<string, string>, body: unknown): Socket {
  const target = new URL(url)
  const text = JSON.stringify(body)
  const socket = connect(Number(target.port), target.hostname)
  socket.pause()
  socket.on('error', () => undefined)
  const lines = Object.entries({ ...headers, host: target.host, 'content-length': String(Buffer.byteLength(text)) }).map(([k, v]) => `${k}: ${v}`)
  socket.write(`POST ${target.pathname} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${text}`)
  return socket
}

/** Waits until the agent's history has `count` finished rows (the dropped call ran to its end). */
async function waitForRows(host: ReturnType<typeof createHost>, count: number): Promise<void> {
  for (;;) {
    const rows = host.agents.history.list({ agentId: 'bench', limit: 500 }).rows
    if (rows.filter((row) => row.finishedAt !== null).length >= count) return
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

/** A GET with Last-Event-ID, read until the result of request `id` arrives. */
function resumeUntilResult(url: string, headers: Record<string, string>, id: number): Promise<void> {
  const target = new URL(url)
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: 'GET', headers }, (response) => {
      let seen = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        seen += chunk
        if (seen.includes(`"id":${id}`)) {
          request.destroy()
          resolve()
        }
      })
    })
    request.on('error', () => undefined)
    request.end()
    setTimeout(() => reject(new Error('no resumed result')), 10_000).unref()
  })
}

const round = (value: number) => Math.round(value * 100) / 100
