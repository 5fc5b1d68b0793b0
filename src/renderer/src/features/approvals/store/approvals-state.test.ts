import { approvalDecisionInputSchema, type ApprovalView, type RuleView } from '@shared/approvals'
import { fail, ok } from '@shared/result'
import { describe, expect, it } from 'vitest'
import { createApprovalsStore } from './approvals-state'
import type { ApprovalsClient } from './client'

// A stand-in for the host at the contract boundary: it keeps items and rules, decides once per
// item like the real queue (already_decided after), and validates decisions with the shared schema.

function item(id: string, second: number, patch: Partial<ApprovalView> = {}): ApprovalView {
  return {
    id,
    agentId: 'coder',
    sessionId: 's1',
    tool: 'run_command',
    status: 'pending',
    summary: `echo ${id}`,
    riskFlags: [],
    createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, second)).toISOString(),
    expiresAt: new Date(Date.UTC(2024, 0, 1, 0, 10, second)).toISOString(),
    kind: 'action',
    reason: 'ask: always',
    policyRule: 'ask.always',
    commands: [['echo', id]],
    preview: null,
    planted: [],
    classification: null,
    count: 1,
    waiting: 1,
    proposedRule: null,
    decision: null,
    ...patch
  }
}

function fakeHost(items: ApprovalView[], rules: RuleView[] = []) {
  const all = new Map(items.map((i) => [i.id, i]))
  const ruleMap = new Map(rules.map((r) => [r.id, r]))
  let listGate: Promise<void> | undefined
  const client = {
    approvals: {
      list: async () => {
        const snapshot = [...all.values()].filter((i) => i.status === 'pending')
        await listGate
        return ok(snapshot)
      },
      get: async ({ id }: { id: string }) => (all.has(id) ? ok(all.get(id)!) : fail('approval.not_found', `There is no approval "${id}".`)),
      decide: async (input: unknown) => {
        const parsed = approvalDecisionInputSchema.parse(input)
        const current = all.get(parsed.id)
        if (!current) return fail('approval.not_found', `There is no approval "${parsed.id}".`)
        if (current.status !== 'pending')
          return fail('approval.already_decided', `Approval ${parsed.id} was already ${current.status}; an item is decided once.`)
        const decided: ApprovalView = {
          ...current,
          status: parsed.decision === 'approve' ? 'approved' : 'denied',
          decision: {
            decision: parsed.decision,
            reason: parsed.decision === 'deny' ? parsed.reason : 'approved once',
            by: 'console',
            decidedAt: new Date().toISOString(),
            delivered: 1
          }
        }
        all.set(parsed.id, decided)
        return ok(decided)
      }
    },
    rules: {
      list: async (input: { all?: boolean }) => ok([...ruleMap.values()].filter((r) => input.all || r.revokedAt === null)),
      update: async () => fail('rule.revoked', 'Rule r1 was revoked; a revoked rule does not change.'),
      revoke: async ({ id }: { id: string }) => {
        const rule = ruleMap.get(id)!
        if (rule.revokedAt) return fail('rule.revoked', `Rule ${id} was already revoked.`)
        const revoked = { ...rule, revokedAt: new Date().toISOString() }
        ruleMap.set(id, revoked)
        return ok(revoked)
      }
    }
  } as unknown as ApprovalsClient
  return {
    client,
    /** Another process (the CLI) decides an item. */
    decideElsewhere(id: string) {
      all.set(id, {
        ...all.get(id)!,
        status: 'approved',
        decision: { decision: 'approve', scope: 'once', reason: 'approved once', by: 'cli', decidedAt: new Date().toISOString(), delivered: 1 }
      })
    },
    add: (added: ApprovalView) => all.set(added.id, added),
    /** Holds list answers until the returned function is called. */
    holdLists() {
      let release = () => undefined as void
      listGate = new Promise<void>((resolve) => (release = resolve))
      return () => {
        listGate = undefined
        release()
      }
    }
  }
}

describe('approvals store: the queue', () => {
  it('lists newest first and selects the newest item', async () => {
    const host = fakeHost([item('old', 1), item('new', 3), item('mid', 2)])
    const store = createApprovalsStore(host.client)
    await store.getState().refreshQueue()
    expect(store.getState().items.map((i) => i.id)).toEqual(['new', 'mid', 'old'])
    expect(store.getState().selectedId).toBe('new')
    store.getState().step(1)
    store.getState().step(1)
    store.getState().step(1)
    expect(store.getState().selectedId).toBe('old')
  })

  it('after a decision removes the item, selects the next older one, and a late list answer does not bring it back', async () => {
    const host = fakeHost([item('a', 3), item('b', 2), item('c', 1)])
    const store = createApprovalsStore(host.client)
    await store.getState().refreshQueue()
    store.getState().step(1)
    expect(store.getState().selectedId).toBe('b')
    const release = host.holdLists()
    const stale = store.getState().refreshQueue() // answered with b still pending
    expect(await store.getState().decide({ id: 'b', decision: 'deny', reason: 'no' })).toBe(true)
    release()
    await stale
    expect(store.getState().items.map((i) => i.id)).toEqual(['a', 'c'])
    expect(store.getState().selectedId).toBe('c')
    expect(store.getState().lastDecided).toMatchObject({ id: 'b', status: 'denied', decision: { reason: 'no' } })
  })

  it('keeps the selection on an item decided elsewhere and shows it read-only, never jumping to another', async () => {
    const host = fakeHost([item('a', 2), item('b', 1)])
    const store = createApprovalsStore(host.client)
    await store.getState().refreshQueue()
    expect(store.getState().selectedId).toBe('a')
    host.decideElsewhere('a')
    await store.getState().refreshQueue()
    expect(store.getState().selectedId).toBe('a')
    expect(store.getState().settled).toMatchObject({ id: 'a', status: 'approved', decision: { by: 'cli' } })
    store.getState().step(1)
    expect(store.getState().selectedId).toBe('b')
    expect(store.getState().settled).toBeUndefined()
  })

  it('shows the host’s message when a decision is refused, and reads the queue again', async () => {
    const host = fakeHost([item('a', 1)])
    const store = createApprovalsStore(host.client)
    await store.getState().refreshQueue()
    host.decideElsewhere('a')
    expect(await store.getState().decide({ id: 'a', decision: 'approve', scope: 'once' })).toBe(false)
    expect(store.getState().decideError).toEqual({ id: 'a', message: expect.stringMatching(/already approved; an item is decided once/) })
    await store.getState().refreshQueue()
    expect(store.getState().items).toEqual([])
  })

  it('opens a decided item from a link read-only, and says when there is no such item', async () => {
    const host = fakeHost([item('a', 1), item('done', 0, { status: 'denied' })])
    const store = createApprovalsStore(host.client)
    await store.getState().refreshQueue()
    await store.getState().select('done')
    expect(store.getState().settled).toMatchObject({ id: 'done', status: 'denied' })
    await store.getState().select('nope')
    expect(store.getState().settled).toBeUndefined()
    expect(store.getState().settledError).toBe('There is no approval "nope".')
    store.getState().backToQueue()
    expect(store.getState()).toMatchObject({ selectedId: 'a', settledError: undefined })
  })

  it('selects a new item when the queue was empty', async () => {
    const host = fakeHost([])
    const store = createApprovalsStore(host.client)
    await store.getState().refreshQueue()
    expect(store.getState()).toMatchObject({ queueStatus: 'ready', selectedId: undefined })
    host.add(item('fresh', 5))
    await store.getState().refreshQueue()
    expect(store.getState().selectedId).toBe('fresh')
  })
})

describe('approvals store: rules', () => {
  const rule = (id: string, patch: Partial<RuleView> = {}): RuleView => ({
    id,
    scope: 'agent',
    agentId: 'coder',
    sessionId: null,
    matcher: { kind: 'command', commands: [{ prefix: ['npm', 'test'] }] },
    riskFlags: [],
    decision: 'allow',
    description: 'run_command: npm test',
    matchCount: 0,
    lastMatchedAt: null,
    createdAt: '2024-01-01T00:00:00Z',
    expiresAt: null,
    revokedAt: null,
    approvalId: null,
    ...patch
  })

  it('revokes a rule (gone from the active list, kept with the ended ones) and shows a refusal', async () => {
    const host = fakeHost([], [rule('r1'), rule('r2'), rule('old', { revokedAt: '2024-01-01T01:00:00Z' })])
    const store = createApprovalsStore(host.client)
    await store.getState().refreshRules()
    expect(store.getState().rules.map((r) => r.id)).toEqual(['r1', 'r2'])
    expect(await store.getState().revokeRule('r1')).toBeUndefined()
    expect(store.getState().rules.map((r) => r.id)).toEqual(['r2'])
    await store.getState().setShowEndedRules(true)
    expect(store.getState().rules.map((r) => r.id)).toEqual(['r1', 'r2', 'old'])
    expect(await store.getState().revokeRule('r1')).toBe('Rule r1 was already revoked.')
    expect(store.getState().rulesActionError).toBe('Rule r1 was already revoked.')
    expect(await store.getState().updateRule({ id: 'r1', ttlSeconds: 60 })).toMatch(/revoked rule does not change/)
  })

  it("picks requests for a bulk decision (one, a range, an agent's) and decides each, one answer per item; one decided elsewhere is refused and reported", async () => {
    const host = fakeHost([
      item('a1', 1, { agentId: 'coder' }),
      item('a2', 2, { agentId: 'builder' }),
      item('a3', 3, { agentId: 'coder' }),
      item('a4', 4, { agentId: 'builder' }),
      item('a5', 5, { agentId: 'coder' })
    ])
    const store = createApprovalsStore(host.client)
    await store.getState().refreshQueue()
    const ids = () => store.getState().checked
    store.getState().toggleChecked('a4')
    store.getState().toggleChecked('a2', true)
    expect(ids()).toEqual(['a4', 'a3', 'a2'])
    store.getState().toggleChecked('a3')
    expect(ids()).toEqual(['a4', 'a2'])
    store.getState().clearChecked()
    store.getState().checkAgent('coder')
    expect(ids()).toEqual(['a5', 'a3', 'a1'])
    host.decideElsewhere('a3')
    const outcome = await store.getState().decideMany(ids().map((id) => ({ id, decision: 'deny' as const, reason: 'not today' })))
    expect(outcome.decided).toBe(2)
    expect(outcome.refused).toEqual([expect.stringMatching(/a3 was already approved/)])
    await store.getState().refreshQueue()
    expect(store.getState().items.map((entry) => entry.id)).toEqual(['a4', 'a2'])
    expect(ids()).toEqual([])
  })
})
