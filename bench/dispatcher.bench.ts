import { join } from 'node:path'
import { it } from 'vitest'
import { z } from 'zod'
import { agentProfileDefaults } from '@shared/agents'
import { ActionHistoryRecorder } from '../src/main/console/action-history-recorder'
import { ActionDispatcher, ActionRegistry, ExecutionResourceManager, type ActionContext, type AnyActionSpec } from '../src/main/core'
import { openStore } from '../src/main/store'
import { makeTempDir } from '../test/support/temp-home'
import { record, summarise } from './support/measure'

/**
 * The dispatcher's own cost (TESTING.md: ≤ 1 ms median): a no-op action through the full flow —
 * input validation, hooks, the history row written as `running` and then ended and hash-chained in a
 * real SQLite file (WAL), `.exec_history` skipped (no workspace) — against calling the executor
 * directly. Samples alternate the two; the overhead is each pipeline sample minus its paired baseline.
 */
it('dispatcher: no-op action overhead with its history row', async () => {
  const dir = makeTempDir('airlock-bench-dispatcher-')
  const store = openStore(join(dir.path, 'airlock.db'))
  try {
    const noop: AnyActionSpec = {
      name: 'noop',
      description: 'does nothing',
      inputSchema: z.object({ text: z.string().max(100) }).strict(),
      effects: 'read',
      executor: { execute: async ({ input }: ActionContext<{ text: string }>) => ({ data: { echoed: input.text } }) }
    }
    const registry = new ActionRegistry()
    registry.register(noop)
    const history = new ActionHistoryRecorder({ repository: store.history, workspaceOf: () => undefined })
    const dispatcher = new ActionDispatcher({ manager: new ExecutionResourceManager(), registry, history })
    const agent = { agentId: 'bench', sessionId: 'bench-session', workspace: dir.path, profile: agentProfileDefaults, tools: new Set(['noop']) }
    const context = { input: { text: 'hello' } } as ActionContext<{ text: string }>
    const pipeline = () => dispatcher.execute({ tool: 'noop', input: { text: 'hello' }, agent })
    const baseline = () => noop.executor.execute(context as ActionContext)
    for (let i = 0; i < 200; i++) await Promise.all([pipeline(), baseline()])
    const overheads: number[] = []
    const pipelineMs: number[] = []
    const baselineMs: number[] = []
    for (let i = 0; i < 3000; i++) {
      let started = performance.now()
      await pipeline()
      const pipelineTime = performance.now() - started
      started = performance.now()
      await baseline()
      const baselineTime = performance.now() - started
      pipelineMs.push(pipelineTime)
      baselineMs.push(baselineTime)
      overheads.push(pipelineTime - baselineTime)
    }
    const overhead = summarise(overheads)
    const base = summarise(baselineMs)
    const full = summarise(pipelineMs)
    record('dispatcher', [
      {
        name: 'dispatcher.noop_action.overhead_ms',
        unit: 'ms',
        median: Number(overhead.median.toFixed(4)),
        p95: Number(overhead.p95.toFixed(4)),
        samples: overheads.length,
        baseline: { median: Number(base.median.toFixed(4)), p95: Number(base.p95.toFixed(4)) },
        ratio: Number((full.median / Math.max(base.median, 0.0001)).toFixed(1)),
        note: 'median of (dispatcher call incl. history row begin + end + hash chain in a real WAL SQLite file) − (executor called directly)'
      }
    ])
  } finally {
    store.close()
    dir.remove()
  }
})
