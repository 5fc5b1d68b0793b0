import { it } from 'vitest'
import { ExecutionResourceManager, type ExecutionResourceProvider } from '../src/main/core'
import { record, summarise } from './support/measure'

/** The cheapest honest provider: the cost measured is the manager's own. */
const instant: ExecutionResourceProvider = {
  providerId: 'instant',
  supportedKinds: ['bench'],
  probe: async () => ({ available: true }),
  ensure: async () => ({ resource: {} }),
  healthCheck: async () => 'ready',
  release: async () => undefined
}

it('manager: ensure + release on a ready handle', async () => {
  const manager = new ExecutionResourceManager().registerProvider(instant)
  const requirement = manager.declare({ kind: 'bench', scope: 'session', ownerId: 's' })
  const keeper = await manager.ensure(requirement.requirementId)
  const rounds: number[] = []
  for (let round = 0; round < 20; round++) {
    const started = performance.now()
    for (let i = 0; i < 2000; i++) await manager.release(await manager.ensure(requirement.requirementId))
    rounds.push(2000 / ((performance.now() - started) / 1000))
  }
  await manager.release(keeper)
  const { median, p95 } = summarise(rounds)
  record('manager', [
    {
      name: 'manager.ensure_release_reuse.ops_per_s',
      unit: 'ops/s',
      median: Math.round(median),
      p95: Math.round(p95),
      samples: rounds.length,
      note: 'p95 is the 95th percentile of per-round rates'
    }
  ])
})
