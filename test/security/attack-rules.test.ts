import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalView } from '@shared/approvals'
import type { ActionResult } from '../../src/main/core'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { approvalHost, waitFor } from '../support/approval-host'
import { skipReasonFor } from '../support/components'
import { runAirlockAsync } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

// Attack: an agent (or whoever reaches the CLI) tries to make a remembered rule answer more than
// the operator approved — a longer line, a wrapped or redirected one, another agent's or a closed
// session's rule, an expired or revoked rule, a hand-made rule row, a write-down — or to decide an
// item twice, with a forged id, or with a huge reason. Safe outcome: every such call reaches the
// operator's queue (or the policy blocks it) and no rule is recorded as matching; decisions land once.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

describe.skipIf(skip !== undefined)(`attacks on remembered rules and the queue${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let h: Awaited<ReturnType<typeof approvalHost>>
  let echoRule: string
  const workspace = () => join(h.host.paths.workspaces, 'victim')

  /** Runs a call; if it reaches the queue, the operator denies it. Returns the result and the item, if any. */
  async function throughQueue(running: Promise<ActionResult>): Promise<{ result: ActionResult; item?: ApprovalView }> {
    let done = false
    void running.then(() => (done = true))
    const item = await waitFor(() => (done ? null : (h.pending()[0] ?? undefined)))
    if (item) h.host.approvals.decide({ id: item.id, decision: 'deny', reason: 'attack case' })
    return { result: await running, ...(item ? { item } : {}) }
  }

  /** Approves the next item of a call as asked and returns its rule id. */
  async function approveAs(
    running: Promise<ActionResult>,
    decision: { scope: 'session' | 'rule'; rule?: { scope?: 'session' | 'agent' | 'global'; ttlSeconds?: number } }
  ): Promise<string> {
    const [item] = await h.waitForPending()
    const decided = h.host.approvals.decide({ id: item!.id, decision: 'approve', ...decision })
    expect((await running).status).toBe('success')
    return decided.decision!.ruleId!
  }

  beforeAll(async () => {
    dir = makeTempDir('airlock-attack-rules-', { outsideTmp: true })
    h = await approvalHost(dir.path)
    const { call } = h.agent('victim')
    echoRule = await approveAs(call('run_command', { command: 'echo hi' }), { scope: 'rule', rule: { scope: 'agent' } })
    writeFileSync(join(workspace(), 'x'), 'keep me\n')
    mkdirSync(join(workspace(), '.git'), { recursive: true })
    writeFileSync(join(workspace(), '.git', 'config'), '[core]\n')
  }, 60_000)
  afterAll(async () => {
    await h?.host.dispose()
    dir?.remove()
  })

  it('holds: the agent-scoped rule for `echo hi` covers exactly that command line', async () => {
    const { call } = h.session('victim')
    for (const line of ['echo hi', 'echo "hi"', "'echo' hi"]) {
      expect(await call('run_command', { command: line }), line).toMatchObject({ status: 'success', meta: { approval: { ruleId: echoRule } } })
    }
  })

  it.each([
    'echo hi; rm -rf x',
    'echo hi && rm -rf x',
    'echo hi\nrm -rf x',
    'echo hi > .git/config',
    'echo hi >> x',
    "sh -c 'echo hi; rm -rf x'",
    "bash -c 'echo hi'",
    'env -i echo hi',
    'LD_PRELOAD=/tmp/evil.so echo hi',
    'echo hi $(rm -rf x)',
    'echo hi | sh',
    'f() { echo hi; }; f',
    'eval "echo hi"',
    '$(printf echo) hi',
    'echo hi &',
    'echo hi; rm -rf ~'
  ])('holds: a rule for `echo hi` does not cover %j (the operator is asked; nothing ran)', async (line) => {
    const before = h.host.rules.get(echoRule).matchCount
    const { result, item } = await throughQueue(h.session('victim').call('run_command', { command: line }))
    const policyBlocked = (result.meta.policy as { decision?: string } | undefined)?.decision === 'deny'
    expect(item !== undefined || policyBlocked, `${line}: neither queued nor blocked`).toBe(true)
    expect(result.status).toBe('blocked')
    expect((result.meta.approval as { ruleId?: string } | undefined)?.ruleId).toBeUndefined()
    expect(h.host.rules.get(echoRule).matchCount).toBe(before)
    expect(readFileSync(join(workspace(), 'x'), 'utf8')).toBe('keep me\n')
    expect(readFileSync(join(workspace(), '.git', 'config'), 'utf8')).toBe('[core]\n')
  })

  it("holds: another agent's rule, and an identical request of another agent is its own item", async () => {
    const { call } = h.agent('intruder')
    const { item } = await throughQueue(call('run_command', { command: 'echo hi' }))
    expect(item).toMatchObject({ agentId: 'intruder' })
    const a = h.session('victim').call('run_command', { command: 'echo batch-me' })
    const b = call('run_command', { command: 'echo batch-me' })
    const items = await h.waitForPending(2)
    expect(items.map((i) => [i.agentId, i.count]).sort()).toEqual([
      ['intruder', 1],
      ['victim', 1]
    ])
    for (const i of items) h.host.approvals.decide({ id: i.id, decision: 'deny', reason: 'no' })
    await Promise.all([a, b])
  })

  it('holds: a removed agent takes its rules with it; an agent created later with its id inherits none', async () => {
    const { call } = h.agent('ghost')
    const ruleId = await approveAs(call('run_command', { command: 'echo boo' }), { scope: 'rule', rule: { scope: 'agent' } })
    h.host.agents.service.remove('ghost')
    expect(h.host.rules.list({ all: true }).map((rule) => rule.id)).not.toContain(ruleId)
    const again = h.agent('ghost')
    expect((await throughQueue(again.call('run_command', { command: 'echo boo' }))).item).toMatchObject({ agentId: 'ghost' })
  })

  it("holds: a closed session's rule, an expired rule and a revoked rule answer nothing", async () => {
    const first = h.session('victim')
    const sessionRule = await approveAs(first.call('run_command', { command: 'echo session-only' }), { scope: 'session' })
    expect(await first.call('run_command', { command: 'echo session-only' })).toMatchObject({ meta: { approval: { ruleId: sessionRule } } })
    await first.end()
    expect((await throughQueue(h.session('victim').call('run_command', { command: 'echo session-only' }))).item).toBeDefined()

    const shortRule = await approveAs(h.session('victim').call('run_command', { command: 'echo short-lived' }), { scope: 'rule', rule: { ttlSeconds: 1 } })
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect((await throughQueue(h.session('victim').call('run_command', { command: 'echo short-lived' }))).item).toBeDefined()
    expect(h.host.rules.get(shortRule).matchCount).toBe(0)

    const revokedRule = await approveAs(h.session('victim').call('run_command', { command: 'echo revoked' }), { scope: 'rule' })
    h.host.rules.revoke(revokedRule)
    expect((await throughQueue(h.session('victim').call('run_command', { command: 'echo revoked' }))).item).toBeDefined()
    expect(h.host.rules.get(revokedRule).matchCount).toBe(0)
  })

  it('holds: hand-made rule rows never widen what is answered (deny rows, broken matchers, a blanket run_command tool rule, write-downs, unanalysed lines)', async () => {
    const db = h.host.store.db
    const insert = db.prepare(
      "insert into rules (id, scope, agent_id, session_id, matcher_json, decision, created_at, risk_flags_json, description) values (?, 'global', null, null, ?, ?, '2020-01-01T00:00:00.000Z', ?, 'hand-made')"
    )
    insert.run('deny-row', JSON.stringify({ kind: 'command', commands: [{ prefix: ['echo', 'deny-row'] }] }), 'deny', '[]')
    insert.run('broken-row', '{"kind":"command","commands":[{"prefix":[]}]}', 'allow', '[]')
    insert.run('blanket-tool', JSON.stringify({ kind: 'tool', tool: 'run_command' }), 'allow', '["network","deletion","vcs_write"]')
    insert.run('read-anything', JSON.stringify({ kind: 'tool', tool: 'read_file' }), 'allow', '[]')
    try {
      expect(h.host.rules.list().map((rule) => rule.id)).not.toContain('broken-row')
      const victim = h.session('victim')
      expect((await throughQueue(victim.call('run_command', { command: 'echo deny-row' }))).item).toBeDefined()
      expect((await throughQueue(victim.call('run_command', { command: 'rm -rf x' }))).item).toBeDefined()

      // Command rules match the commands in order, one entry each: a rule for every piece of the dynamic line, and a wide echo rule.
      insert.run(
        'printf-then-echo',
        JSON.stringify({
          kind: 'command',
          commands: [
            { prefix: ['printf'], args: '*' },
            { prefix: ['echo'], args: '*' }
          ]
        }),
        'allow',
        '[]'
      )
      insert.run('echo-anything', JSON.stringify({ kind: 'command', commands: [{ prefix: ['echo'], args: '*' }] }), 'allow', '[]')
      expect((await throughQueue(victim.call('run_command', { command: '$(printf echo) hi' }))).item).toMatchObject({ policyRule: 'command.dynamic' })
      // The wide echo rule covers a plain echo (a positive control), not the dynamic line above.
      expect(await victim.call('run_command', { command: 'echo anything goes' })).toMatchObject({ meta: { approval: { ruleId: 'echo-anything' } } })

      h.host.settings.set('policy.labels', { paths: { 'secrets/**': 'CONFIDENTIAL' } })
      try {
        const { call } = h.agent('junior', { capabilities: ['files'], classificationCeiling: 'INTERNAL', ask: 'on_risk' })
        const { item, result } = await throughQueue(call('read_file', { path: 'secrets/key.txt' }))
        expect(item).toMatchObject({ policyRule: 'classification.above_ceiling' })
        expect(result.meta.approval).not.toHaveProperty('ruleId')
      } finally {
        h.host.settings.reset('policy.labels')
      }
      expect(h.host.rules.get('blanket-tool')!.matchCount).toBe(0)
      expect(h.host.rules.get('read-anything')!.matchCount).toBe(0)
    } finally {
      for (const id of ['deny-row', 'broken-row', 'blanket-tool', 'read-anything', 'printf-then-echo', 'echo-anything'])
        db.prepare('delete from rules where id = ?').run(id)
    }
  })

  it('holds: a path rule for src/ does not cover a write through a link in src/ that leads into .git', async () => {
    const { call } = h.session('victim')
    const ruleId = await approveAs(call('write_file', { path: 'src/a.txt', content: 'a' }), { scope: 'rule', rule: { scope: 'agent' } })
    h.host.rules.update({ id: ruleId, matcher: { kind: 'path', subtree: 'src', tools: ['write_file'] } })
    expect(await call('write_file', { path: 'src/b.txt', content: 'b' })).toMatchObject({ status: 'success', meta: { approval: { ruleId } } })
    symlinkSync('../.git', join(workspace(), 'src', 'link'))
    const { result } = await throughQueue(call('write_file', { path: 'src/link/config', content: '[core]\n\thooksPath = /tmp/evil\n' }))
    expect(result.status).not.toBe('success')
    expect((result.meta.approval as { ruleId?: string } | undefined)?.ruleId).toBeUndefined()
    expect(readFileSync(join(workspace(), '.git', 'config'), 'utf8')).toBe('[core]\n')
  })

  it('holds: an item is decided once, whoever comes second (the console or the CLI), and a losing rule decision leaves no rule', async () => {
    const victim = h.session('victim')
    // The console first: the CLI's decision is refused (exit 1) and the approval stands.
    const first = victim.call('run_command', { command: 'echo race-one' })
    const [one] = await h.waitForPending()
    const rulesBefore = h.host.rules.list({ all: true }).length
    h.host.approvals.decide({ id: one!.id, decision: 'approve', scope: 'rule' })
    const late = await runAirlockAsync(['approvals', 'deny', one!.id, '--reason', 'from the cli', '--home', dir.path])
    expect(late.code).toBe(1)
    expect(late.stderr).toMatch(/^airlock: Approval \S+ was already approved \(console\); an item is decided once\.\n$/)
    expect(await first).toMatchObject({ status: 'success' })
    expect(h.host.rules.list({ all: true })).toHaveLength(rulesBefore + 1)

    // The CLI first: the console's rule decision is refused, and makes no rule.
    const second = victim.call('run_command', { command: 'echo race-two' })
    const [two] = await h.waitForPending()
    expect((await runAirlockAsync(['approvals', 'deny', two!.id, '--reason', 'from the cli', '--home', dir.path])).code).toBe(0)
    expect(() => h.host.approvals.decide({ id: two!.id, decision: 'approve', scope: 'rule' })).toThrow(/was already denied \(cli\)/)
    expect(await second).toMatchObject({ status: 'blocked', error: { message: 'denied by the operator: from the cli' } })
    expect(h.host.rules.list({ all: true })).toHaveLength(rulesBefore + 1)
  }, 60_000)

  it('holds: forged and unknown ids from the CLI find nothing and change nothing; a huge reason is refused', async () => {
    const running = h.session('victim').call('run_command', { command: 'echo forged' })
    const [item] = await h.waitForPending()
    for (const id of ["' OR '1'='1", '%', '*', `${item!.id.slice(0, 8)}%`, '../airlock.db', echoRule, 'x'.repeat(10_000)]) {
      const run = await runAirlockAsync(['approvals', 'approve', id, '--home', dir.path])
      expect(run.code, id.slice(0, 40)).toBe(1)
      expect(run.stderr, id.slice(0, 40)).toMatch(/^airlock: There is no approval /)
    }
    const huge = await runAirlockAsync(['approvals', 'deny', item!.id, '--reason', 'r'.repeat(50_000), '--home', dir.path])
    expect(huge.code).toBe(2)
    expect(huge.stderr).toMatch(/--reason is 50000 characters; at most 2000/)
    expect(await h.ipc('approvals', 'decide', { id: item!.id, decision: 'deny', reason: 'r'.repeat(2001) })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed' }
    })
    expect(await h.ipc('approvals', 'decide', { id: item!.id, decision: 'deny', reason: 'r'.repeat(2_000_000) })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', message: expect.stringMatching(/too large/) }
    })
    expect(h.host.approvals.get(item!.id)).toMatchObject({ status: 'pending', waiting: 1 })
    h.host.approvals.decide({ id: item!.id, decision: 'deny', reason: 'end of case' })
    expect(await running).toMatchObject({ status: 'blocked' })
    expect(existsSync(join(workspace(), 'x'))).toBe(true)
  }, 120_000)
})
