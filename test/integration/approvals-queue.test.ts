import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalWaitEvent } from '../../src/main/console/approvals'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { approvalHost, stdoutOf, waitFor } from '../support/approval-host'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

// The operator's approval queue end to end (SPEC §7): a real store file, real commands in
// bubblewrap through the host's sessions (dispatcher, policy engine, the `console` handler), and
// decisions through the contract's handlers. Agents here ask before every command (`ask: always`),
// so harmless commands wait for the operator.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

describe.skipIf(skip !== undefined)(`the approval queue${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let h: Awaited<ReturnType<typeof approvalHost>>

  beforeAll(async () => {
    dir = makeTempDir('airlock-approvals-', { outsideTmp: true })
    h = await approvalHost(dir.path)
  }, 60_000)
  afterAll(async () => {
    await h?.host.dispose()
    dir?.remove()
  })

  it('a call that asks waits as a queue item; approved once, it runs and returns the real output', async () => {
    const pushed: [string, unknown][] = []
    const unsubscribe = h.host.events.subscribe((channel, payload) => pushed.push([channel, payload]))
    const { call, sessionId } = h.agent('coder')
    const running = call('run_command', { command: 'echo approved-output' })
    const [item] = await h.waitForPending()
    expect(item).toMatchObject({
      agentId: 'coder',
      sessionId,
      tool: 'run_command',
      status: 'pending',
      kind: 'action',
      policyRule: 'ask.always',
      commands: [['echo', 'approved-output']],
      count: 1,
      waiting: 1,
      decision: null,
      proposedRule: { matcher: { kind: 'command', commands: [{ prefix: ['echo', 'approved-output'] }] }, description: 'run_command: echo approved-output' }
    })
    expect(item!.summary).toContain('echo approved-output')
    expect(Date.parse(item!.expiresAt) - Date.parse(item!.createdAt)).toBe(600_000)
    expect(pushed).toContainEqual(['airlock:approvals:changed', { approvalId: item!.id, change: 'requested' }])
    expect(h.host.store.events.recent({ prefixes: ['approval.requested'] })[0]!.payload).toMatchObject({
      approvalId: item!.id,
      tool: 'run_command',
      policyRule: 'ask.always'
    })

    const decided = await h.ipc('approvals', 'decide', { id: item!.id, decision: 'approve' })
    expect(decided).toMatchObject({ ok: true, value: { status: 'approved', decision: { decision: 'approve', scope: 'once', by: 'console', delivered: 1 } } })
    const result = await running
    expect(result).toMatchObject({ ok: true, status: 'success', meta: { approval: { status: 'approved', approvalId: item!.id, scope: 'once' } } })
    expect(stdoutOf(result)).toBe('approved-output\n')
    expect(h.host.agents.history.detail(result.meta.callId as string)?.approval).toMatchObject({ status: 'approved', approvalId: item!.id })
    expect(h.pending()).toEqual([])
    // Decided once: a second decision is refused and changes nothing.
    expect(await h.ipc('approvals', 'decide', { id: item!.id, decision: 'deny', reason: 'too late' })).toMatchObject({
      ok: false,
      error: { code: 'approval.already_decided' }
    })
    expect(h.host.approvals.get(item!.id)).toMatchObject({ status: 'approved' })
    unsubscribe()
  })

  it('denied, the agent gets the operator reason and nothing runs', async () => {
    const { call } = h.agent('coder')
    const running = call('run_command', { command: 'touch denied.txt' })
    const [item] = await h.waitForPending()
    expect(await h.ipc('approvals', 'decide', { id: item!.id, decision: 'deny', reason: 'not in this repository' })).toMatchObject({
      ok: true,
      value: { status: 'denied' }
    })
    expect(await running).toMatchObject({
      ok: false,
      status: 'blocked',
      error: { code: 'approval.denied', message: 'denied by the operator: not in this repository' },
      meta: { approval: { status: 'denied', approvalId: item!.id } }
    })
    expect(existsSync(join(h.host.paths.workspaces, 'coder', 'denied.txt'))).toBe(false)
  })

  it('an item nobody decides expires: the call is denied, saying so (fail closed), and nothing runs', async () => {
    const { call } = h.agent('hasty', { approvalTimeoutSeconds: 1 })
    const started = Date.now()
    const result = await call('run_command', { command: 'touch expired.txt' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    expect(result).toMatchObject({
      status: 'blocked',
      error: { code: 'approval.denied', message: expect.stringMatching(/nobody decided within 1 seconds: the request expired and is denied \(fail closed\)/) }
    })
    const item = h.host.approvals.list({ status: 'expired' })[0]!
    expect(item).toMatchObject({ agentId: 'hasty', status: 'expired', decision: { decision: 'expire', by: 'timeout', delivered: 1 } })
    expect(existsSync(join(h.host.paths.workspaces, 'hasty', 'expired.txt'))).toBe(false)
    expect(h.host.store.events.recent({ prefixes: ['approval.expired'] })[0]!.payload).toMatchObject({ approvalId: item.id, by: 'timeout' })
  })

  it('identical requests of one agent are one item (batched); one approval lets them all run; a different request is its own item', async () => {
    const first = h.agent('batcher')
    const second = h.session('batcher')
    const calls = [
      first.call('run_command', { command: 'echo same' }),
      second.call('run_command', { command: 'echo same' }),
      first.call('run_command', { command: 'echo same' })
    ]
    const [item] = await waitFor(() => {
      const items = h.pending()
      return items.length === 1 && items[0]!.count === 3 ? items : undefined
    })
    expect(item).toMatchObject({ count: 3, waiting: 3, sessionId: first.sessionId })
    const other = first.call('run_command', { command: 'echo different' })
    const both = await h.waitForPending(2)
    expect(both.map((i) => i.count).sort()).toEqual([1, 3])
    expect(h.host.approvals.decide({ id: item!.id, decision: 'approve' })).toMatchObject({ status: 'approved', decision: { delivered: 3 } })
    for (const result of await Promise.all(calls)) expect(stdoutOf(result)).toBe('same\n')
    const rest = h.pending()
    expect(rest).toHaveLength(1)
    h.host.approvals.decide({ id: rest[0]!.id, decision: 'deny', reason: 'enough' })
    expect(await other).toMatchObject({ status: 'blocked' })
  })

  it('approved for this session: identical calls of the session run without asking (the rule named in history), other sessions still ask, and it ends with the session', async () => {
    const mine = h.agent('sessioned')
    const running = mine.call('run_command', { command: 'echo session-scoped' })
    const [item] = await h.waitForPending()
    const decided = h.host.approvals.decide({ id: item!.id, decision: 'approve', scope: 'session' })
    expect(decided).toMatchObject({ status: 'approved', decision: { scope: 'session', ruleId: expect.any(String) } })
    const ruleId = decided.decision!.ruleId!
    expect(await running).toMatchObject({ status: 'success', meta: { approval: { approvalId: item!.id, scope: 'session', ruleId } } })
    expect(h.host.rules.list()).toContainEqual(
      expect.objectContaining({ id: ruleId, scope: 'session', agentId: 'sessioned', sessionId: mine.sessionId, approvalId: item!.id })
    )

    const again = await mine.call('run_command', { command: 'echo session-scoped' })
    expect(again).toMatchObject({ status: 'success', meta: { approval: { status: 'approved', ruleId, scope: 'rule' } } })
    expect(h.host.agents.history.detail(again.meta.callId as string)?.approval).toMatchObject({ ruleId })
    expect(h.pending()).toEqual([])

    const elsewhere = h.session('sessioned')
    const asking = elsewhere.call('run_command', { command: 'echo session-scoped' })
    const [other] = await h.waitForPending()
    h.host.approvals.decide({ id: other!.id, decision: 'deny', reason: 'not this session' })
    expect(await asking).toMatchObject({ status: 'blocked' })

    await mine.end()
    expect(h.host.rules.list().map((rule) => rule.id)).not.toContain(ruleId)
    expect(h.host.rules.list({ all: true }).find((rule) => rule.id === ruleId)).toMatchObject({ matchCount: 1, expiresAt: expect.any(String) })
  })

  it('approved as a rule (agent scope): the identical call in a new session runs with no queue item and names the rule; a line with more in it is not covered', async () => {
    const first = h.agent('ruled')
    const running = first.call('run_command', { command: 'echo hi' })
    const [item] = await h.waitForPending()
    const decided = await h.ipc('approvals', 'decide', { id: item!.id, decision: 'approve', scope: 'rule', rule: { scope: 'agent' } })
    expect(decided).toMatchObject({ ok: true, value: { status: 'approved', decision: { scope: 'rule', ruleId: expect.any(String) } } })
    await running
    const ruleId = (decided as { value: { decision: { ruleId: string } } }).value.decision.ruleId
    expect(await h.ipc('rules', 'list', {})).toMatchObject({
      ok: true,
      value: expect.arrayContaining([
        expect.objectContaining({ id: ruleId, scope: 'agent', agentId: 'ruled', description: 'run_command: echo hi', riskFlags: [] })
      ])
    })

    const later = h.session('ruled')
    const covered = await later.call('run_command', { command: 'echo hi' })
    expect(covered).toMatchObject({ status: 'success', meta: { approval: { status: 'approved', ruleId } } })
    expect(stdoutOf(covered)).toBe('hi\n')
    expect(h.host.agents.history.detail(covered.meta.callId as string)?.approval).toMatchObject({ ruleId })
    expect(h.host.rules.get(ruleId)).toMatchObject({ matchCount: 1, lastMatchedAt: expect.any(String) })
    expect(h.host.store.events.recent({ prefixes: ['rule.matched'] })[0]!.payload).toMatchObject({ ruleId, agentId: 'ruled', tool: 'run_command' })

    const more = later.call('run_command', { command: 'echo hi; rm -rf x' })
    const [asked] = await h.waitForPending()
    expect(asked).toMatchObject({
      commands: [
        ['echo', 'hi'],
        ['rm', '-rf', 'x']
      ]
    })
    h.host.approvals.decide({ id: asked!.id, decision: 'deny', reason: 'no' })
    expect(await more).toMatchObject({ status: 'blocked' })

    // Revoked, it answers nothing; revoking twice is refused.
    expect(await h.ipc('rules', 'revoke', { id: ruleId })).toMatchObject({ ok: true, value: { revokedAt: expect.any(String) } })
    expect(await h.ipc('rules', 'revoke', { id: ruleId })).toMatchObject({ ok: false, error: { code: 'rule.revoked' } })
    const revoked = later.call('run_command', { command: 'echo hi' })
    const [again] = await h.waitForPending()
    h.host.approvals.decide({ id: again!.id, decision: 'deny', reason: 'revoked' })
    expect(await revoked).toMatchObject({ status: 'blocked' })
  })

  it('rules are edited through the contract: a wider matcher (args glob) covers more, a TTL ends it', async () => {
    const { call } = h.agent('editor')
    const running = call('run_command', { command: 'echo one' })
    const [item] = await h.waitForPending()
    const ruleId = h.host.approvals.decide({ id: item!.id, decision: 'approve', scope: 'rule' }).decision!.ruleId!
    await running
    const edited = await h.ipc('rules', 'update', { id: ruleId, matcher: { kind: 'command', commands: [{ prefix: ['echo'], args: 'o*' }] } })
    expect(edited).toMatchObject({ ok: true, value: { description: 'run_command: echo o*' } })
    expect(await call('run_command', { command: 'echo other' })).toMatchObject({ status: 'success', meta: { approval: { ruleId } } })
    expect(await h.ipc('rules', 'update', { id: ruleId, matcher: { kind: 'command', commands: [] } })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed' }
    })
    expect(await h.ipc('rules', 'update', { id: ruleId })).toMatchObject({ ok: false, error: { code: 'validation_failed' } })
    expect(await h.ipc('rules', 'update', { id: 'nope', ttlSeconds: 5 })).toMatchObject({ ok: false, error: { code: 'rule.not_found' } })
    expect(await h.ipc('rules', 'update', { id: ruleId, ttlSeconds: 1 })).toMatchObject({ ok: true, value: { expiresAt: expect.any(String) } })
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const expired = call('run_command', { command: 'echo other' })
    const [asked] = await h.waitForPending()
    h.host.approvals.decide({ id: asked!.id, decision: 'deny', reason: 'expired rule' })
    expect(await expired).toMatchObject({ status: 'blocked' })
  })

  it('a file write asks with a unified diff preview, and a path rule covers its subtree only', async () => {
    const { call } = h.agent('writer')
    const running = call('write_file', { path: 'src/app.txt', content: 'hello\nworld\n' })
    const [item] = await h.waitForPending()
    expect(item).toMatchObject({ tool: 'write_file', proposedRule: { matcher: { kind: 'path', subtree: 'src/app.txt', tools: ['write_file'] } } })
    expect(item!.preview).toBe('--- a/src/app.txt\n+++ b/src/app.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n')
    const ruleId = h.host.approvals.decide({
      id: item!.id,
      decision: 'approve',
      scope: 'rule',
      rule: { matcher: { kind: 'path', subtree: 'src', tools: ['write_file', 'edit_file'] } }
    }).decision!.ruleId!
    expect(await running).toMatchObject({ status: 'success' })
    expect(await call('edit_file', { path: 'src/app.txt', oldText: 'world', newText: 'there' })).toMatchObject({
      status: 'success',
      meta: { approval: { ruleId } }
    })
    expect(await call('write_file', { path: 'src/deeper/b.txt', content: 'b' })).toMatchObject({ status: 'success', meta: { approval: { ruleId } } })
    const outside = call('write_file', { path: 'srcx/c.txt', content: 'c' })
    const [asked] = await h.waitForPending()
    expect(asked).toMatchObject({ tool: 'write_file', summary: expect.stringContaining('srcx/c.txt') })
    h.host.approvals.decide({ id: asked!.id, decision: 'deny', reason: 'outside src' })
    expect(await outside).toMatchObject({ status: 'blocked' })
  })

  it('watchCall follows a waiting call: waiting (at once for a late watcher), then the outcome', async () => {
    const { call } = h.agent('watched')
    const callId = randomUUID()
    const early: ApprovalWaitEvent[] = []
    const stop = h.host.approvals.watchCall(callId, (event) => early.push(event))
    const running = call('run_command', { command: 'echo watched' }, { callId })
    const [item] = await h.waitForPending()
    const late: ApprovalWaitEvent[] = []
    h.host.approvals.watchCall(callId, (event) => late.push(event))
    expect(late).toMatchObject([{ callId, approvalId: item!.id, state: 'waiting', remainingSeconds: expect.any(Number) }])
    h.host.approvals.decide({ id: item!.id, decision: 'approve' })
    await running
    expect(early.map((event) => event.state)).toEqual(['waiting', 'approved'])
    expect(early[1]).toMatchObject({ approvalId: item!.id, reason: 'approved once by the operator (console)' })
    stop()
  })

  it('a cancelled call stops waiting (cancelled, the item stays for a retry); a disabled agent ends its wait and its item', async () => {
    const { call } = h.agent('canceller')
    const callId = randomUUID()
    const running = call('run_command', { command: 'echo cancel-me' }, { callId })
    const [item] = await h.waitForPending()
    expect(h.host.agents.dispatcher.cancel(callId)).toBe(true)
    expect(await running).toMatchObject({ status: 'cancelled' })
    expect(h.host.approvals.get(item!.id)).toMatchObject({ status: 'pending', waiting: 0 })
    // Nobody waits now: an approval is recorded, and the item is marked expired.
    expect(h.host.approvals.decide({ id: item!.id, decision: 'approve' })).toMatchObject({
      status: 'expired',
      decision: { decision: 'approve', delivered: 0, reason: expect.stringMatching(/Nobody was waiting/) }
    })

    const doomed = h.agent('doomed')
    const waiting = doomed.call('run_command', { command: 'echo never' })
    const [next] = await h.waitForPending()
    h.host.agents.service.setEnabled('doomed', false)
    expect(await waiting).toMatchObject({ status: 'blocked', error: { code: 'policy.agent_disabled' } })
    expect(h.host.approvals.get(next!.id)).toMatchObject({
      status: 'expired',
      decision: { by: 'cancelled', reason: 'its agent was disabled while the call waited' }
    })
  })

  it('write-downs and reads above the ceiling always reach the operator: they cannot become rules', async () => {
    h.host.settings.set('policy.labels', { paths: { 'secrets/**': 'CONFIDENTIAL' } })
    try {
      const { call } = h.agent('junior', { capabilities: ['files'], classificationCeiling: 'INTERNAL', ask: 'on_risk' })
      const running = call('read_file', { path: 'secrets/x.txt' })
      const [item] = await h.waitForPending()
      expect(item).toMatchObject({ policyRule: 'classification.above_ceiling', proposedRule: null, classification: { reads: 'CONFIDENTIAL' } })
      for (const scope of ['session', 'rule'] as const) {
        expect(await h.ipc('approvals', 'decide', { id: item!.id, decision: 'approve', scope })).toMatchObject({
          ok: false,
          error: { code: 'approval.not_rememberable', message: expect.stringMatching(/always reaches the operator/) }
        })
      }
      // An edited matcher does not make it rememberable either.
      expect(
        await h.ipc('approvals', 'decide', { id: item!.id, decision: 'approve', scope: 'rule', rule: { matcher: { kind: 'tool', tool: 'read_file' } } })
      ).toMatchObject({ ok: false, error: { code: 'approval.not_rememberable' } })
      expect(h.host.rules.list().filter((rule) => rule.agentId === 'junior')).toEqual([])
      h.host.approvals.decide({ id: item!.id, decision: 'deny', reason: 'no' })
      expect(await running).toMatchObject({ status: 'blocked' })
    } finally {
      h.host.settings.reset('policy.labels')
    }
  })

  it('a resource requirement that asks for approval waits in the queue too', async () => {
    const ensuring = h.host.resources.ensure({ kind: 'code_execution', approvalRequired: true, scope: 'global' }).catch((error: unknown) => error)
    const [item] = await h.waitForPending()
    expect(item).toMatchObject({ kind: 'resource', agentId: null, tool: 'code_execution', proposedRule: null })
    h.host.approvals.decide({ id: item!.id, decision: 'deny', reason: 'not now' })
    expect(await ensuring).toMatchObject({ code: 'execution_resource.approval_denied', message: expect.stringContaining('not now') })
  })

  it('the contract: list by status, get, bad ids and bad decisions name the problem', async () => {
    expect(await h.ipc('approvals', 'list', {})).toMatchObject({ ok: true, value: [] })
    const all = await h.ipc('approvals', 'list', { status: 'all' })
    expect((all as { value: unknown[] }).value.length).toBeGreaterThan(5)
    expect(await h.ipc('approvals', 'get', { id: 'nope' })).toMatchObject({ ok: false, error: { code: 'approval.not_found' } })
    expect(await h.ipc('approvals', 'decide', { id: 'nope', decision: 'approve' })).toMatchObject({ ok: false, error: { code: 'approval.not_found' } })
    expect(await h.ipc('approvals', 'decide', { id: 'x', decision: 'deny', reason: '   ' })).toMatchObject({ ok: false, error: { code: 'validation_failed' } })
    expect(await h.ipc('approvals', 'decide', { id: 'x', decision: 'approve', scope: 'forever' })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed' }
    })
    expect(await h.ipc('approvals', 'decide', { id: 'x', decision: 'approve', force: true })).toMatchObject({ ok: false, error: { code: 'validation_failed' } })
  })

  it('sessions: listed across agents, open or ended; ending one releases it and tells consoles', async () => {
    const pushed: unknown[] = []
    const unsubscribe = h.host.events.subscribe((channel, payload) => channel === 'airlock:sessions:changed' && pushed.push(payload))
    const { sessionId, call } = h.agent('sessionist', { ask: 'never' })
    expect(pushed).toEqual([{ sessionId, agentId: 'sessionist', change: 'started' }])
    expect(await h.ipc('sessions', 'list', { agentId: 'sessionist', open: true })).toMatchObject({
      ok: true,
      value: [{ id: sessionId, open: true, transport: 'test' }]
    })
    expect(await h.ipc('sessions', 'end', { id: sessionId })).toMatchObject({ ok: true, value: { id: sessionId, open: false, endReason: 'ended_by_operator' } })
    expect(pushed).toContainEqual({ sessionId, agentId: 'sessionist', change: 'ended' })
    await expect(call('run_command', { command: 'echo x' })).rejects.toMatchObject({ code: 'session.closed' })
    expect(await h.ipc('sessions', 'end', { id: sessionId })).toMatchObject({ ok: true, value: { open: false } })
    expect(await h.ipc('sessions', 'end', { id: 'nope' })).toMatchObject({ ok: false, error: { code: 'session.not_found' } })
    expect(await h.ipc('sessions', 'list', { open: false, agentId: 'sessionist' })).toMatchObject({ ok: true, value: [{ id: sessionId }] })
    unsubscribe()
  })
})

describe.skipIf(skip !== undefined)(`queue items survive a restart${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('pending items stay pending; an identical retry joins and gets the decision; one nobody waits for is marked expired; one past its time expires at start', async () => {
    const dir = makeTempDir('airlock-approvals-restart-', { outsideTmp: true })
    try {
      let h = await approvalHost(dir.path)
      const first = h.agent('restarter')
      const waiting = first.call('run_command', { command: 'echo after-restart' })
      const alone = first.call('run_command', { command: 'echo nobody-waits' })
      const short = h.agent('shorty', { approvalTimeoutSeconds: 1 }).call('run_command', { command: 'echo short' })
      await h.waitForPending(3)
      await h.host.dispose()
      expect(await waiting).toMatchObject({
        status: 'blocked',
        error: { message: expect.stringMatching(/Airlock stopped while this call waited for approval; the request stays in the queue/) }
      })
      await Promise.all([alone, short])
      await new Promise((resolve) => setTimeout(resolve, 1100))

      h = await approvalHost(dir.path)
      const pending = h.pending()
      expect(pending.map((item) => item.summary).sort()).toEqual(['restarter: echo after-restart', 'restarter: echo nobody-waits'].sort())
      expect(pending.every((item) => item.waiting === 0)).toBe(true)
      expect(h.host.approvals.list({ status: 'expired' })).toContainEqual(
        expect.objectContaining({ agentId: 'shorty', decision: expect.objectContaining({ by: 'restart' }) })
      )

      const item = pending.find((i) => i.summary.includes('after-restart'))!
      const retry = h.session('restarter').call('run_command', { command: 'echo after-restart' })
      await waitFor(() => (h.host.approvals.get(item.id).waiting === 1 ? true : undefined))
      expect(h.host.approvals.get(item.id)).toMatchObject({ count: 2, status: 'pending' })
      h.host.approvals.decide({ id: item.id, decision: 'approve' })
      expect(stdoutOf(await retry)).toBe('after-restart\n')

      const orphan = pending.find((i) => i.summary.includes('nobody-waits'))!
      const decided = h.host.approvals.decide({ id: orphan.id, decision: 'approve', scope: 'rule' })
      expect(decided).toMatchObject({ status: 'expired', decision: { decision: 'approve', delivered: 0, ruleId: expect.any(String) } })
      // The rule was still made: the next identical call runs.
      expect(await h.session('restarter').call('run_command', { command: 'echo nobody-waits' })).toMatchObject({
        status: 'success',
        meta: { approval: { ruleId: decided.decision!.ruleId } }
      })
      await h.host.dispose()
    } finally {
      dir.remove()
    }
  }, 60_000)
})
