// The escape corpus (issue 13, SPEC §9 and TESTING.md "Security test corpus") run through the real
// action path: a real host per provider, an agent per case whose profile pins the provider, and
// every attempt sent as the agent's MCP call would be (`host.agents.sessions.execute`: policy,
// approval, provider, run, record, release). Each case is judged on the host (escape-corpus-stage.ts)
// and, on bubblewrap and docker, by its exact outcome. trusted_local isolates nothing: it runs the
// cases that are harmless on an unisolated host, must be reported unisolated in every result and
// history row, and must be seen escaping where nothing but isolation could stop the attack —
// the proof that the corpus's checks can fail.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isolationAxisNames } from '@shared/resources'
import type { ActionResult } from '../../src/main/core'
import { checkEngine, createDockerClient } from '../../src/main/providers'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { checkGvisorHost } from '../../src/main/providers/gvisor/gvisor-host'
import { makeTempDir } from '../support/temp-home'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import type { EscapeCase, Outcome, Race, Step } from './escape-corpus-case'
import { escapeCorpus } from './escape-corpus-cases'
import { openCorpusStage, type CaseContext, type CorpusProviderId, type CorpusStage } from './escape-corpus-stage'

const docker = createDockerClient()
const gvisorHome = makeTempDir('airlock-corpus-gvisor-probe-', { outsideTmp: true })
const [bwrap, engine, gvisor] = await Promise.all([checkBubblewrapHost(), checkEngine(docker), checkGvisorHost({ home: gvisorHome.path })])
gvisorHome.remove()
const providers: { id: CorpusProviderId; mechanism: string; skip?: string }[] = [
  { id: 'bubblewrap', mechanism: 'bubblewrap', skip: skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason }) },
  { id: 'gvisor', mechanism: 'gvisor', skip: skipReasonFor('gVisor (runsc)', { available: gvisor.ok, reason: gvisor.ok ? '' : gvisor.reason }) },
  { id: 'docker', mechanism: 'container', skip: skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason }) },
  { id: 'trusted_local', mechanism: 'trusted_local' }
]

/** The evidence each case left on each provider (empty: blocked), for the table printed at the end. */
const verdicts = new Map<CorpusProviderId, Map<string, string[]>>(providers.map((provider) => [provider.id, new Map()]))

afterAll(() => {
  const rows = escapeCorpus.map((c) => {
    const cells = providers.map(({ id }) => {
      const evidence = verdicts.get(id)!.get(c.id)
      return `${id}: ${evidence === undefined ? '-' : evidence.length === 0 ? 'blocked' : `ESCAPED (${evidence.join('; ')})`}`
    })
    return `${c.id.padEnd(26)} ${c.area.padEnd(14)} ${cells.join(' | ')}`
  })
  console.log(`escape corpus results\n${rows.join('\n')}`)
})

// Evidence is found by names built from case ids (pwned-<id>, the agent <id>): ids must not nest.
it('case ids are unique agent slugs, none the prefix of another', () => {
  const ids = escapeCorpus.map((c) => c.id)
  for (const id of ids) {
    expect(id).toMatch(/^[a-z0-9][a-z0-9-]{0,62}$/)
    expect(ids.filter((other) => other.startsWith(id))).toEqual([id])
  }
})

/** The cases a provider runs: trusted_local only the harmless ones; an isolating provider all that apply to it. */
function casesFor(providerId: CorpusProviderId): EscapeCase[] {
  if (providerId === 'trusted_local') return escapeCorpus.filter((c) => c.unisolated !== 'not_run' && c.only === undefined)
  // The races attack the host's file tools, with a sandboxed racer swapping folders by RENAME_EXCHANGE, which
  // Debian's runsc does not implement: on gvisor the race cannot be staged (the tools are raced on the others).
  const staged = (c: EscapeCase) => !(providerId === 'gvisor' && c.area === 'race')
  return escapeCorpus.filter((c) => (c.only === undefined || c.only === providerId) && staged(c))
}

for (const provider of providers) {
  const unisolated = provider.id === 'trusted_local'
  describe.skipIf(provider.skip !== undefined)(`escape corpus on ${provider.id}${provider.skip ? ` (skipped: ${provider.skip})` : ''}`, () => {
    let stage: CorpusStage
    beforeAll(async () => {
      if (provider.id === 'docker') await ensureTestImages(docker)
      stage = await openCorpusStage(provider.id)
    }, 600_000)
    afterAll(async () => stage?.close(), 120_000)

    for (const c of casesFor(provider.id)) {
      const title = `${c.id}: ${c.attack}${c.regression ? ' (escaped before)' : ''}${unisolated ? ` — ${c.unisolated} unisolated` : ''}`
      // Cases that load the machine or race run alone; the rest in small concurrent groups.
      const test = c.alone ? it : it.concurrent
      test(
        title,
        async () => {
          const ctx = await stage.openCase(c.id, c.limits)
          try {
            c.hostPrepare?.(ctx)
            for (const step of c.prepare?.(ctx) ?? []) await ctx.call(step.tool, step.input)
            const outcome = await attempt(c, ctx)
            const evidence = [...((await c.evidence?.(outcome, ctx)) ?? []), ...(await stage.hostEvidence(ctx, outcome.results))]
            verdicts.get(provider.id)!.set(c.id, evidence)
            expectReportedProvider(outcome.results, provider, ctx)
            if (unisolated) {
              expect(evidence.length > 0 ? 'escapes' : 'holds', `evidence: ${JSON.stringify(evidence)}; stdout: ${outcome.stdout.slice(0, 500)}`).toBe(
                c.unisolated
              )
            } else {
              expect(evidence, `escape on ${provider.id}`).toEqual([])
              c.expect(outcome, ctx)
            }
          } finally {
            await ctx.close()
          }
        },
        60_000
      )
    }

    if (unisolated) {
      it('trusted_local is seen escaping in every area isolation alone protects (the corpus can fail)', () => {
        const escaped = casesFor('trusted_local').filter((c) => (verdicts.get('trusted_local')!.get(c.id) ?? []).length > 0)
        expect(escaped.map((c) => c.id)).toEqual(
          casesFor('trusted_local')
            .filter((c) => c.unisolated === 'escapes')
            .map((c) => c.id)
        )
        expect([...new Set(escaped.map((c) => c.area))]).toEqual(expect.arrayContaining(['filesystem', 'process', 'syscalls', 'privilege', 'network']))
      })
    }
  })
}

/** Runs a case's attempt: its calls in order, or a race of the file tools against a sandboxed swapper. */
async function attempt(c: EscapeCase, ctx: CaseContext): Promise<Outcome> {
  const plan = c.attempt(ctx)
  const results = Array.isArray(plan) ? await inOrder(plan, ctx) : await race(plan.race, ctx)
  const last = results.at(-1)!
  const data = (last.data ?? {}) as { stdout?: string; stderr?: string; exitCode?: number }
  return { results, last, stdout: data.stdout ?? '', stderr: data.stderr ?? '', exitCode: data.exitCode }
}

async function inOrder(steps: Step[], ctx: CaseContext): Promise<ActionResult[]> {
  const results: ActionResult[] = []
  for (const step of steps) results.push(await ctx.call(step.tool, step.input))
  return results
}

/** Calls the victim tool again and again while the racer (a background run_command) swaps paths. */
async function race(plan: Race, ctx: CaseContext): Promise<ActionResult[]> {
  let settled = false
  const racing = ctx.call('run_command', { command: plan.racer }).finally(() => (settled = true))
  const ready = join(ctx.workspace, 'race-ready')
  while (!existsSync(ready) && !settled) await new Promise((resolve) => setTimeout(resolve, 20))
  const results: ActionResult[] = []
  for (let index = 0; !settled && index < 400; index++) results.push(await ctx.call(plan.victim(index).tool, plan.victim(index).input))
  const racer = await racing
  expect(racer, JSON.stringify(racer.error)).toMatchObject({ status: 'success' })
  expect((racer.data as { stdout: string }).stdout).toMatch(/^swaps [1-9]\d*$/m)
  return results
}

/**
 * Every call that ran on a provider says which one and its isolation facts, in the result
 * (`meta.provider`) and in the history row: all four axes true on an isolating provider, all
 * four false — unisolated — on trusted_local.
 */
function expectReportedProvider(results: ActionResult[], provider: (typeof providers)[number], ctx: CaseContext): void {
  for (const result of results) {
    const facts = result.meta.provider as { providerId?: string; isolation?: Record<string, unknown> } | undefined
    if (facts?.providerId === undefined) continue
    const axes = {
      ...Object.fromEntries(isolationAxisNames.map((axis) => [axis, provider.id !== 'trusted_local'])),
      // Only gVisor claims a kernel of its own; the others share the host's.
      ...(provider.id === 'gvisor' ? { kernel: 'separate' } : {})
    }
    expect(facts).toMatchObject({ providerId: provider.id, isolation: { ...axes, mechanism: provider.mechanism } })
    const detail = ctx.detail(result.meta.callId as string)
    expect(detail).toMatchObject({ providerId: provider.id, provider: { providerId: provider.id, isolation: { ...axes, mechanism: provider.mechanism } } })
  }
}
