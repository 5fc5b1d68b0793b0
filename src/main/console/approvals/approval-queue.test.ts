import { setMaxListeners } from 'node:events'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../../test/support/temp-home'
import type { ApprovalRequest } from '../../core'
import { openStore, type Store } from '../../store'
import { ApprovalQueue, maxPendingPerAgent } from './approval-queue'
import { RuleService } from './rule-service'

// The queue over a real store, asked directly (the dispatcher's side is in test/approvals-queue):
// the per-agent cap, a list no agent can flood, and decisions that come too late.

let dir: ReturnType<typeof makeTempDir>
let store: Store
let queue: ApprovalQueue

beforeEach(() => {
  dir = makeTempDir()
  store = openStore(join(dir.path, 'airlock.db'))
  const at = new Date().toISOString()
  for (const id of ['flooder', 'quiet'])
    store.agents.insert({ id, name: id, roleId: null, tokenHash: '0'.repeat(64), enabled: true, profile: {}, createdAt: at, updatedAt: at })
  // No analyzer: no command rule matches (fail closed); these tests are about the queue itself.
  const rules = new RuleService({ store, analyzer: () => Promise.reject(new Error('not in this test')) })
  queue = new ApprovalQueue({ store, rules })
})
afterEach(async () => {
  await queue.stop()
  store.close()
  dir.remove()
})

/** A command request of an agent, as the dispatcher sends it. */
function request(agentId: string, line: string, extra: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    requirementId: line,
    kind: 'action',
    scope: 'action_call',
    reason: 'policy asks',
    summary: `${agentId}: ${line}`,
    tool: 'run_command',
    agentId,
    input: { command: line },
    commands: [line.split(' ')],
    analysed: true,
    rule: 'ask.always',
    ...extra
  }
}

/** A signal the many waiting calls of one test share. */
function sharedSignal(): AbortController {
  const controller = new AbortController()
  setMaxListeners(64, controller.signal)
  return controller
}

/** Asks and lets the request reach the store (the handler is asynchronous). */
async function ask(req: ApprovalRequest) {
  const answer = Promise.resolve(queue.handler(req))
  await new Promise((resolve) => setTimeout(resolve, 5))
  return answer
}

describe('ApprovalQueue', () => {
  it(`holds at most ${maxPendingPerAgent} distinct pending items per agent: past that a request is denied at once, naming the cap, without a row`, async () => {
    const controller = sharedSignal()
    for (let i = 0; i < maxPendingPerAgent; i++) void ask(request('flooder', `echo flood-${i}`, { signal: controller.signal }))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(queue.list().filter((item) => item.agentId === 'flooder')).toHaveLength(maxPendingPerAgent)
    const refused = await ask(request('flooder', 'echo one-more'))
    expect(refused).toEqual({
      status: 'denied',
      reason: expect.stringMatching(/already has 32 requests waiting .*at most 32 per agent.*denied at once, not queued/)
    })
    expect(queue.list({ status: 'all' }).filter((item) => item.agentId === 'flooder')).toHaveLength(maxPendingPerAgent)
    expect(store.events.recent({ prefixes: ['approval.refused'] })[0]!.payload).toMatchObject({ agentId: 'flooder', pending: 32, cap: 32 })
    // An identical request still joins its item; another agent is not affected.
    void ask(request('flooder', 'echo flood-0', { signal: controller.signal }))
    void ask(request('quiet', 'echo please', { signal: controller.signal }))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(queue.list().find((item) => item.summary === 'flooder: echo flood-0')?.count).toBe(2)
    expect(queue.list().some((item) => item.agentId === 'quiet')).toBe(true)
    controller.abort()
  })

  it("lists fairly: with more items than the limit, every agent's newest items are there, newest first", async () => {
    const controller = sharedSignal()
    void ask(request('quiet', 'echo older', { signal: controller.signal }))
    await new Promise((resolve) => setTimeout(resolve, 10))
    for (let i = 0; i < 20; i++) {
      void ask(request('flooder', `echo flood-${i}`, { signal: controller.signal }))
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
    const listed = queue.list({ limit: 5 })
    expect(listed.map((item) => item.summary)).toEqual([
      'flooder: echo flood-19',
      'flooder: echo flood-18',
      'flooder: echo flood-17',
      'flooder: echo flood-16',
      'quiet: echo older'
    ])
    expect(queue.list()).toHaveLength(21)
    controller.abort()
  })

  it('a decision at or after the expiry does not land: the item expires in its place, and the call is denied', async () => {
    const answer = ask(request('quiet', 'touch late.txt', { timeoutSeconds: 1 }))
    await new Promise((resolve) => setTimeout(resolve, 20))
    const [item] = queue.list()
    // A busy process: the expiry timer could not run before the click is handled.
    const deadline = Date.parse(item!.expiresAt)
    while (Date.now() < deadline) {
      // busy
    }
    const decided = queue.decide({ id: item!.id, decision: 'approve', scope: 'rule' })
    expect(decided).toMatchObject({
      status: 'expired',
      decision: {
        decision: 'expire',
        by: 'console',
        reason: expect.stringMatching(/approval came after the request expired at .*: it expired and is denied \(fail closed\)/)
      }
    })
    expect(store.rules.list({ all: true })).toEqual([])
    expect(await answer).toMatchObject({ status: 'denied', reason: expect.stringMatching(/came after the request expired/) })
  })
})
