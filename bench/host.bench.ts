import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { it } from 'vitest'
import { createHost, startHostGateway } from '../src/main/host'
import { checkBubblewrapHost } from '../src/main/providers/bubblewrap/bubblewrap-probe'
import { callTool, connectAgent } from '../test/support/mcp-gateway-client'
import { startServe } from '../test/support/run-cli'
import { makeTempDir } from '../test/support/temp-home'
import { record, summarise, type BenchResult } from './support/measure'

/**
 * The host as a whole:
 * - `host.idle_rss_mb`: resident memory of `airlock serve` (host, gateway, web console) on a fresh
 *   home, idle after start, sampled over 10 s; goal ≤ 150 MB. Baseline: an idle bare `node`
 *   process in the same run (what Node itself costs).
 * - `agent.first_result_ms`: an agent created (token issued), its MCP client connected, and its
 *   first sandboxed `run_code` (Python `print(1)` in bubblewrap) answered: what an agent author
 *   waits for the first time. Reported (no goal), over fresh agents.
 */
it("host: idle memory and an agent's first result", async () => {
  const results: BenchResult[] = [await idleRss()]
  const bwrap = await checkBubblewrapHost()
  results.push(
    bwrap.ok ? await firstResult() : { name: 'agent.first_result_ms', unit: 'ms', median: 0, p95: 0, samples: 0, note: `not measured: ${bwrap.reason}` }
  )
  record('host', results)
})

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024
}

async function samplesOf(pid: number, seconds: number): Promise<number[]> {
  const values: number[] = []
  for (let i = 0; i < seconds * 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    values.push(rssMb(pid))
  }
  return values
}

async function idleRss(): Promise<BenchResult> {
  const home = makeTempDir('airlock-bench-rss-', { outsideTmp: true })
  const served = await startServe(['--port', '0', '--gateway-port', '0', '--home', home.path])
  const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' })
  try {
    await new Promise((resolve) => setTimeout(resolve, 3000))
    const host = summarise(await samplesOf(served.child.pid!, 10))
    const baseline = summarise(await samplesOf(bare.pid!, 2))
    return {
      name: 'host.idle_rss_mb',
      unit: 'MB',
      median: Number(host.median.toFixed(1)),
      p95: Number(host.p95.toFixed(1)),
      samples: 20,
      baseline: { median: Number(baseline.median.toFixed(1)), p95: Number(baseline.p95.toFixed(1)) },
      ratio: Number((host.median / baseline.median).toFixed(2)),
      note: 'airlock serve on a fresh home, idle, sampled every 0.5 s for 10 s; baseline: an idle bare node process; goal ≤ 150 MB'
    }
  } finally {
    bare.kill()
    await served.stop()
    home.remove()
  }
}

async function firstResult(): Promise<BenchResult> {
  const home = makeTempDir('airlock-bench-first-', { outsideTmp: true })
  const host = createHost({ home: home.path, logError: () => undefined })
  await host.recovered
  const gateway = await startHostGateway(host, { port: 0, logError: () => undefined })
  const times: number[] = []
  try {
    for (let i = 0; i < 12; i++) {
      const started = performance.now()
      const { token } = host.agents.service.create(`first${i}`, { profile: { capabilities: ['files', 'python'], ask: 'never' } })
      const agent = await connectAgent(gateway.url, token)
      try {
        const result = await callTool(agent.client, 'run_code', { language: 'python', sourceCode: 'print(1)' })
        if (result.structuredContent.status !== 'success') throw new Error(`run_code failed: ${JSON.stringify(result.structuredContent).slice(0, 300)}`)
        if (i >= 2) times.push(performance.now() - started)
      } finally {
        await agent.close()
      }
    }
  } finally {
    await gateway.close()
    await host.dispose()
    home.remove()
  }
  const { median, p95 } = summarise(times)
  return {
    name: 'agent.first_result_ms',
    unit: 'ms',
    median: Number(median.toFixed(1)),
    p95: Number(p95.toFixed(1)),
    samples: times.length,
    note: 'agent created → MCP client connected → first run_code python print(1) in bubblewrap answered (in-process host, loopback gateway)'
  }
}
