import { spawn } from 'node:child_process'
import { it } from 'vitest'
import { channelOf } from '@shared/ipc'
import { createHost, startHostGateway } from '../src/main/host'
import { checkBubblewrapHost } from '../src/main/providers/bubblewrap/bubblewrap-probe'
import { callTool, connectAgent } from '../test/support/mcp-gateway-client'
import { makeTempDir } from '../test/support/temp-home'
import { compare, record, summarise, type BenchResult } from './support/measure'

/**
 * The agent gateway (issue 11), measured with real SDK clients over Streamable HTTP against an
 * in-process host (real SQLite file, real policy, real bubblewrap):
 * - `approval.round_trip_ms`: from an agent's `tools/call` leaving the client to its queue item
 *   arriving on the contract event stream (what a console hears); goal median ≤ 50 ms. Baseline: a
 *   `read_file` round trip through the same gateway (a call that does not ask), same session.
 * - `run_command.throughput.ratio_vs_bare_spawn`: 10 agents, 8 calls in flight, `run_command echo`
 *   through the gateway (policy, history, each agent's warm bubblewrap shell) in calls per second,
 *   over a bare `sh -c echo` spawned at the same concurrency; goal ≥ 0.5 (issue 29).
 * - `gateway.run_command_true.ratio_vs_bare_bwrap`: one agent, one call at a time, `run_command
 *   true` from the SDK client's request to its result (HTTP, auth, policy, history, the warm
 *   bubblewrap sandbox), over `bwrap --unshare-all … true` spawned directly, alternating; goal
 *   median ≤ 1.6 (issue 29). `AIRLOCK_BENCH_ONLY=single` measures only this one.
 */
it('gateway: approval round trip and run_command throughput', async () => {
  const dir = makeTempDir('airlock-bench-gateway-', { outsideTmp: true })
  const host = createHost({ home: dir.path, logError: () => undefined })
  await host.recovered
  host.settings.set('gateway.rate_per_minute', 100_000)
  const gateway = await startHostGateway(host, { port: 0, logError: () => undefined })
  const results: BenchResult[] = []
  try {
    const all = process.env.AIRLOCK_BENCH_ONLY !== 'single'
    if (all) results.push(await approvalRoundTrip(host, gateway.url))
    const bwrap = await checkBubblewrapHost()
    const unmeasured = (name: string, unit: string) => ({ name, unit, median: 0, p95: 0, samples: 0, note: `not measured: ${bwrap.ok ? '' : bwrap.reason}` })
    if (all) results.push(bwrap.ok ? await throughput(host, gateway.url) : unmeasured('run_command.throughput.ratio_vs_bare_spawn', 'calls/s'))
    results.push(bwrap.ok ? await singleTrue(host, gateway.url) : unmeasured('gateway.run_command_true.ratio_vs_bare_bwrap', 'ms'))
  } finally {
    await gateway.close()
    await host.dispose()
    dir.remove()
  }
  record('gateway', results)
})

async function approvalRoundTrip(host: ReturnType<typeof createHost>, url: string): Promise<BenchResult> {
  const { token } = host.agents.service.create('asker', { profile: { capabilities: ['files'], ask: 'always' } })
  const agent = await connectAgent(url, token)
  const changed = channelOf('approvals', 'changed')
  let arrived: ((at: number) => void) | undefined
  const unsubscribe = host.events.subscribe((channel, payload) => {
    if (channel === changed && (payload as { change?: string }).change === 'requested') arrived?.(performance.now())
  })
  await callTool(agent.client, 'write_file', { path: 'seed.txt', content: 'x' }).catch(() => undefined)
  for (const item of host.approvals.list()) host.approvals.decide({ id: item.id, decision: 'approve' })
  const rounds = 60
  const queued: number[] = []
  const plain: number[] = []
  try {
    for (let i = 0; i < rounds + 5; i++) {
      const seen = new Promise<number>((resolve) => (arrived = resolve))
      const started = performance.now()
      // Each call is distinct (its own path), so none is batched into an earlier item.
      const call = callTool(agent.client, 'write_file', { path: `asked-${i}.txt`, content: 'x' })
      const at = await seen
      const [item] = host.approvals.list()
      host.approvals.decide({ id: item!.id, decision: 'deny', reason: 'benchmark' })
      await call
      const readStarted = performance.now()
      await callTool(agent.client, 'read_file', { path: 'seed.txt' })
      const readMs = performance.now() - readStarted
      if (i >= 5) {
        queued.push(at - started)
        plain.push(readMs)
      }
    }
  } finally {
    unsubscribe()
    await agent.close()
  }
  const q = summarise(queued)
  const b = summarise(plain)
  return {
    name: 'approval.round_trip_ms',
    unit: 'ms',
    median: round(q.median),
    p95: round(q.p95),
    samples: rounds,
    baseline: { median: round(b.median), p95: round(b.p95) },
    ratio: round(q.median / b.median),
    note: 'tools/call write_file (ask: always) → its queue item on the contract event stream, real SDK client over HTTP; baseline: a read_file round trip through the same gateway; goal median ≤ 50 ms'
  }
}

async function throughput(host: ReturnType<typeof createHost>, url: string): Promise<BenchResult> {
  const agents = await Promise.all(
    Array.from({ length: 10 }, async (_, index) => {
      const { token } = host.agents.service.create(`runner-${index}`, { profile: { capabilities: ['shell'], ask: 'never' } })
      return connectAgent(url, token)
    })
  )
  const callsPerRound = 80
  const concurrency = 8
  const runGateway = () =>
    pool(callsPerRound, concurrency, async (n) => {
      const result = await callTool(agents[n % agents.length]!.client, 'run_command', { command: 'echo ok' })
      if (result.structuredContent.status !== 'success')
        throw new Error(`run_command ended ${result.structuredContent.status}: ${JSON.stringify(result.structuredContent.error)}`)
    })
  const runBare = () => pool(callsPerRound, concurrency, () => bareSpawn())
  try {
    await runGateway()
    await runBare()
    const gatewayRates: number[] = []
    const bareRates: number[] = []
    for (let round = 0; round < 6; round++) {
      for (const [run, rates] of round % 2 === 0
        ? ([
            [runGateway, gatewayRates],
            [runBare, bareRates]
          ] as const)
        : ([
            [runBare, bareRates],
            [runGateway, gatewayRates]
          ] as const)) {
        const started = performance.now()
        await run()
        rates.push(callsPerRound / ((performance.now() - started) / 1000))
      }
    }
    const g = summarise(gatewayRates)
    const b = summarise(bareRates)
    return {
      name: 'run_command.throughput.ratio_vs_bare_spawn',
      unit: 'calls/s',
      median: round(g.median),
      p95: round(g.p95),
      samples: gatewayRates.length * callsPerRound,
      baseline: { median: round(b.median), p95: round(b.p95) },
      ratio: round(g.median / b.median),
      note: `10 agents, ${concurrency} calls in flight, run_command "echo ok" through the gateway (policy, queue-free, history, warm bubblewrap shell per session) vs bare sh -c spawns at the same concurrency; goal ≥ 0.7`
    }
  } finally {
    await Promise.all(agents.map((agent) => agent.close()))
  }
}

async function singleTrue(host: ReturnType<typeof createHost>, url: string): Promise<BenchResult> {
  const { token } = host.agents.service.create('single', { profile: { capabilities: ['shell'], ask: 'never' } })
  const agent = await connectAgent(url, token)
  try {
    return await compare({
      name: 'gateway.run_command_true.ratio_vs_bare_bwrap',
      samples: 120,
      warmup: 5,
      pipeline: async () => {
        const result = await callTool(agent.client, 'run_command', { command: 'true' })
        if (result.structuredContent.status !== 'success') throw new Error(`run_command ended ${result.structuredContent.status}`)
      },
      baseline: () => bareSpawn(['bwrap', '--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', 'true']),
      note: 'one SDK client in the bench process, one call at a time: tools/call run_command "true" → result, vs bwrap --unshare-all --ro-bind / / --proc --dev true spawned directly; goal median ≤ 1.6'
    })
  } finally {
    await agent.close()
  }
}

/** Runs `total` tasks with at most `limit` in flight. */
async function pool(total: number, limit: number, task: (n: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < total) await task(next++)
    })
  )
}

function bareSpawn([program, ...args]: string[] = ['sh', '-c', 'echo ok']): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program!, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.resume()
    child.on('error', reject)
    child.on('close', () => resolve())
  })
}

function round(value: number): number {
  return Number(value.toFixed(3))
}
