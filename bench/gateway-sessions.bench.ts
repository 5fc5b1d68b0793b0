import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { it } from 'vitest'
import { startAgentGateway } from '../src/main/gateway'
import { createHost } from '../src/main/host'
import { mcpHeaders, rawRequest } from '../test/support/mcp-gateway-client'
import { makeTempDir } from '../test/support/temp-home'
import { record, type BenchResult } from './support/measure'

/**
 * Gateway sessions over long work (issue 25), against an in-process host and gateway:
 * - `gateway.idle_sessions_memory_mb`: what 100 idle MCP sessions (initialized, nothing running) add
 *   to the heap after a full collection (RSS moves with the allocator, not with what is held). Reported.
 */
it('gateway sessions: the memory of idle sessions', async () => {
  const dir = makeTempDir('airlock-bench-sessions-', { outsideTmp: true })
  const host = createHost({ home: dir.path, logError: () => undefined })
  await host.recovered
  host.settings.set('gateway.rate_per_minute', 100_000)
  host.settings.set('gateway.max_sessions_per_agent', 256)
  const { token } = host.agents.agents.create('bench', { profile: { capabilities: ['files'], ask: 'never' } })
  const gateway = await startAgentGateway({ host, port: 0, logError: () => undefined })
  const results: BenchResult[] = []
  try {
    const open = async () => {
      const init = await rawRequest(gateway.url, {
        headers: mcpHeaders(token),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })
      })
      const headers = mcpHeaders(token, { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' })
      await rawRequest(gateway.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
      return headers
    }
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

const round = (value: number) => Math.round(value * 100) / 100
