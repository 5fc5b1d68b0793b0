import { execFile } from 'node:child_process'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { it } from 'vitest'
import { EgressProxy, egressGate } from '../src/main/network'
import { makeTempDir } from '../test/support/temp-home'
import { startDownloadServer } from './support/download-server'
import { compare, compareThroughput, record, type BenchResult } from './support/measure'

const execFileAsync = promisify(execFile)

/**
 * The egress proxy (issue 14), measured on the host side of its socket (what every proxied
 * sandbox connection goes through; the in-sandbox bridge adds one loopback hop):
 * - `network.proxy_throughput.ratio_vs_direct`: a 100 MB download from a loopback server through
 *   the proxy (CONNECT tunnel over the endpoint's unix socket) vs straight from the server, in
 *   bytes per second; goal ≥ 0.8.
 * - `network.connect_overhead_ms`: time to an established tunnel (CONNECT, the gate with a rule
 *   and a pinned name, the upstream connect) minus a direct TCP connect; goal ≤ 5 ms median.
 */
it('network: proxy throughput and connect overhead', async () => {
  const payloadBytes = 1024 * 1024
  const totalMb = 100
  // The server is a process of its own too (see `timedDownload`): 100 MB of one repeated MiB.
  const server = await startDownloadServer(totalMb)
  const port = server.port
  const dir = makeTempDir('airlock-bench-net-')
  const proxy = new EgressProxy({
    runDir: join(dir.path, 'run'),
    gate: egressGate({
      rules: () => [{ id: 'allow', agentId: null, decision: 'allow', host: 'pkgs.test', createdAt: '2026-01-01T00:00:00Z' }],
      pinned: () => '127.0.0.1',
      agentOf: () => ({ agentId: 'bench', ask: 'never', approvalTimeoutSeconds: 1 }),
      ask: async () => false
    })
  })
  // Windowed, one run going on for the whole bench (as a container's or MCP server's bridge would be).
  const endpoint = await proxy.open({ scope: 'session', ownerId: 'bench' }, { attribution: 'window' })
  const run = endpoint.track('bench-run')
  const socketPath = join(endpoint.socketDir, endpoint.socketName)
  const results: BenchResult[] = []
  try {
    /** An established byte stream to the server: through a CONNECT tunnel, or directly. */
    const open = (viaProxy: boolean) =>
      new Promise<Socket>((resolve, reject) => {
        if (!viaProxy) {
          const direct = connect(port, '127.0.0.1', () => resolve(direct))
          direct.once('error', reject)
          return
        }
        const socket = connect(socketPath, () => socket.write(`CONNECT pkgs.test:${port} HTTP/1.1\r\nHost: pkgs.test:${port}\r\n\r\n`))
        socket.once('error', reject)
        let head = ''
        const onData = (chunk: Buffer) => {
          head += chunk.toString('latin1')
          if (!head.includes('\r\n\r\n')) return
          socket.off('data', onData)
          if (!head.startsWith('HTTP/1.1 200')) return reject(new Error(head))
          resolve(socket)
        }
        socket.on('data', onData)
      })
    // Client and server run in processes of their own, as a sandboxed program and a remote server
    // would: only the proxy shares this process, so the figure is the proxy's cost, not the bench's.
    const download = (viaProxy: boolean) => timedDownload(viaProxy ? { socketPath, host: `pkgs.test:${port}` } : { port }, payloadBytes * totalMb)
    results.push(
      await compareThroughput({
        name: 'network.proxy_throughput.ratio_vs_direct',
        megabytes: totalMb,
        pipeline: () => download(true),
        baseline: () => download(false),
        note: `${totalMb} MB over HTTP from a loopback server: CONNECT tunnel through the egress proxy's unix socket vs a direct TCP connection; goal ≥ 0.8 (higher is better)`
      })
    )
    const connectTimes = await compare({
      name: 'network.connect_overhead_ms',
      samples: 200,
      warmup: 10,
      pipeline: async () => (await open(true)).destroy(),
      baseline: async () => (await open(false)).destroy(),
      note: 'time to an established CONNECT tunnel (gate: rule + pinned name; upstream connect) vs a direct loopback TCP connect; the figure is the difference of medians; goal ≤ 5 ms'
    })
    results.push({
      ...connectTimes,
      unit: 'ms',
      median: round(connectTimes.median - connectTimes.baseline!.median),
      p95: round(connectTimes.p95 - connectTimes.baseline!.p95)
    })
  } finally {
    run()
    await endpoint.close()
    server.stop()
    dir.remove()
  }
  record('network', results)
}, 300_000)

/** Runs one download in a child node process (direct, or through a CONNECT tunnel on the proxy's socket); its seconds. */
async function timedDownload(target: { port: number } | { socketPath: string; host: string }, expected: number): Promise<number> {
  const script = `
const net = require('net'); const t = JSON.parse(process.argv[1]); const expected = Number(process.argv[2])
const started = process.hrtime.bigint(); let bytes = 0; let tunnelled = !t.socketPath; let head = ''
const s = t.socketPath ? net.connect(t.socketPath) : net.connect(t.port, '127.0.0.1')
s.on('connect', () => s.write(t.socketPath ? 'CONNECT ' + t.host + ' HTTP/1.1\\r\\nHost: ' + t.host + '\\r\\n\\r\\n' : 'GET /big HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n'))
s.on('data', (chunk) => {
  if (!tunnelled) { head += chunk.toString('latin1'); if (head.includes('\\r\\n\\r\\n')) { tunnelled = true; s.write('GET /big HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n') } return }
  bytes += chunk.length
})
s.on('error', (error) => console.error('socket error: ' + error.message))
s.on('close', () => { if (bytes < expected) { console.error('short: ' + bytes + ' bytes; the proxy answered: ' + JSON.stringify(head.slice(0, 300))); process.exit(1) } console.log(Number(process.hrtime.bigint() - started) / 1e9) })
`
  const { stdout } = await execFileAsync(process.execPath, ['-e', script, JSON.stringify(target), String(expected)], { maxBuffer: 1024 * 1024 })
  return Number(stdout.trim())
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000
}
