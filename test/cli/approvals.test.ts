import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { approvalListKeys } from '@shared/approvals'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { approvalHost, stdoutOf, waitFor } from '../support/approval-host'
import { skipReasonFor } from '../support/components'
import { runAirlockAsync } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

// `airlock approvals` and `airlock rules` through the built CLI, another process, against a home
// where a host in this test process has calls waiting: the CLI decides through the shared SQLite
// database and the waiting call resumes (the host polls the database's data_version).

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
const cliTimeoutMs = 120_000

describe.skipIf(skip !== undefined)(`airlock approvals and rules${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let h: Awaited<ReturnType<typeof approvalHost>>
  const cli = (...args: string[]) => runAirlockAsync([...args, '--home', dir.path])

  beforeAll(async () => {
    dir = makeTempDir('airlock-cli-approvals-', { outsideTmp: true })
    h = await approvalHost(dir.path)
  }, 60_000)
  afterAll(async () => {
    await h?.host.dispose()
    dir?.remove()
  })

  it(
    'lists the waiting item (exactly the documented JSON keys); approve resumes the waiting call with its real output',
    async () => {
      const { call, sessionId } = h.agent('coder')
      const running = call('run_command', { command: 'echo from-the-cli' })
      const [item] = await h.waitForPending()

      const listed = await cli('approvals', 'list', '--json')
      expect(listed.code).toBe(0)
      const json = JSON.parse(listed.stdout) as Record<string, unknown>[]
      expect(json).toHaveLength(1)
      expect(Object.keys(json[0]!)).toEqual([...approvalListKeys])
      expect(json[0]).toEqual({
        id: item!.id,
        agentId: 'coder',
        sessionId,
        tool: 'run_command',
        status: 'pending',
        summary: 'coder: echo from-the-cli',
        riskFlags: [],
        createdAt: item!.createdAt,
        expiresAt: item!.expiresAt
      })
      const text = await cli('approvals', 'list')
      expect(text.stdout).toMatch(
        new RegExp(`^${item!.id}  coder  run_command  coder: echo from-the-cli  \\(expires in \\d+s; 1 waiting; rule: ask.always\\)\\n$`)
      )

      // `show` prints the whole item, one fact per line; `--json` the item as the console has it.
      const shown = await cli('approvals', 'show', item!.id)
      expect(shown.code).toBe(0)
      expect(shown.stdout).toMatch(new RegExp(`^Approval ${item!.id}: pending \\(expires in \\d+s\\)\\n`))
      expect(shown.stdout).toContain('  summary:        coder: echo from-the-cli\n')
      expect(shown.stdout).toContain('  policy rule:    ask.always\n')
      expect(shown.stdout).toContain('  commands:       1\n    1. echo from-the-cli\n')
      expect(shown.stdout).toContain('  proposed rule:  run_command: echo from-the-cli\n')
      expect(shown.stdout).toContain('  decision:       none yet\n')
      const shownJson = await cli('approvals', 'show', item!.id, '--json')
      expect(JSON.parse(shownJson.stdout)).toMatchObject({
        id: item!.id,
        status: 'pending',
        commands: [['echo', 'from-the-cli']],
        proposedRule: { description: 'run_command: echo from-the-cli' },
        decision: null
      })

      const started = Date.now()
      const approved = await cli('approvals', 'approve', item!.id)
      expect(approved).toMatchObject({ code: 0, stderr: '' })
      expect(approved.stdout).toBe(`Approved ${item!.id} once: the waiting call was told.\n`)
      const result = await running
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(result).toMatchObject({
        status: 'success',
        meta: { approval: { status: 'approved', approvalId: item!.id, scope: 'once', reason: 'approved once by the operator (cli)' } }
      })
      expect(stdoutOf(result)).toBe('from-the-cli\n')
      expect((await cli('approvals', 'list')).stdout).toBe('No approvals wait.\n')
      const all = JSON.parse((await cli('approvals', 'list', '--all', '--json')).stdout) as { id: string; status: string }[]
      expect(all).toContainEqual(expect.objectContaining({ id: item!.id, status: 'approved' }))

      // Decided once: a second decision fails (exit 1) and says why.
      const again = await cli('approvals', 'deny', item!.id, '--reason', 'late')
      expect(again.code).toBe(1)
      expect(again.stderr).toMatch(/^airlock: Approval .* was already approved \(cli\); an item is decided once\.\n$/)
    },
    cliTimeoutMs
  )

  it(
    'deny sends the reason to the waiting agent',
    async () => {
      const { call } = h.agent('coder')
      const running = call('run_command', { command: 'touch nope.txt' })
      const [item] = await h.waitForPending()
      const denied = await cli('approvals', 'deny', item!.id, '--reason', 'not on this branch')
      expect(denied.code).toBe(0)
      expect(denied.stdout).toBe(`Denied ${item!.id} (not on this branch): the waiting call was told.\n`)
      expect(await running).toMatchObject({ status: 'blocked', error: { code: 'approval.denied', message: 'denied by the operator: not on this branch' } })
    },
    cliTimeoutMs
  )

  it(
    'approve as a rule from the CLI: listed by rules list, covers the identical call, revoked by rules rm',
    async () => {
      const { call } = h.agent('coder')
      const running = call('run_command', { command: 'echo ruled' })
      const [item] = await h.waitForPending()
      const approved = await cli('approvals', 'approve', item!.id, '--scope', 'rule', '--rule-scope', 'agent', '--ttl', '3600')
      expect(approved.code).toBe(0)
      const ruleId = /^Rule (\S+) \(agent coder, until \S+\): run_command: echo ruled$/m.exec(approved.stdout)?.[1]
      expect(ruleId, approved.stdout).toBeDefined()
      await running
      expect(await call('run_command', { command: 'echo ruled' })).toMatchObject({ status: 'success', meta: { approval: { ruleId } } })

      const rules = JSON.parse((await cli('rules', 'list', '--json')).stdout) as { id: string; matchCount: number; scope: string }[]
      expect(rules).toContainEqual(expect.objectContaining({ id: ruleId, matchCount: 1, scope: 'agent', description: 'run_command: echo ruled' }))
      expect((await cli('rules', 'list')).stdout).toContain(`${ruleId}  agent coder  run_command: echo ruled  (1 matches; until `)
      const removed = await cli('rules', 'rm', ruleId!)
      expect(removed).toMatchObject({ code: 0, stdout: `Revoked rule ${ruleId}: run_command: echo ruled\n` })
      const twice = await cli('rules', 'rm', ruleId!)
      expect(twice.code).toBe(1)
      expect(twice.stderr).toMatch(/already revoked/)
      // The running host stops matching it at once.
      const asking = call('run_command', { command: 'echo ruled' })
      const [next] = await h.waitForPending()
      h.host.approvals.decide({ id: next!.id, decision: 'deny', reason: 'revoked' })
      expect(await asking).toMatchObject({ status: 'blocked' })
      expect((await cli('rules', 'list')).stdout).not.toContain(ruleId!)
      expect((await cli('rules', 'list', '--all')).stdout).toContain(`${ruleId}  agent coder`)
    },
    cliTimeoutMs
  )

  it(
    'an item nobody waits for any more is recorded as decided and marked expired, and the CLI says so',
    async () => {
      const { call } = h.agent('coder')
      const controller = new AbortController()
      const running = call('run_command', { command: 'echo gone' }, { signal: controller.signal })
      const [item] = await h.waitForPending()
      controller.abort()
      expect(await running).toMatchObject({ status: 'cancelled' })
      const approved = await cli('approvals', 'approve', item!.id)
      expect(approved.code).toBe(0)
      expect(approved.stdout).toBe(`Approved ${item!.id} once, but nobody was waiting for it any more: it is marked expired (the agent may ask again).\n`)
      expect(h.host.approvals.get(item!.id)).toMatchObject({ status: 'expired', decision: { decision: 'approve', by: 'cli', delivered: 0 } })
    },
    cliTimeoutMs
  )

  it(
    'refuses bad usage (exit 2) and unknown ids (exit 1) with one line',
    async () => {
      const cases: [string[], number, RegExp][] = [
        [['approvals'], 2, /^airlock: approvals takes list, show, approve or deny$/],
        [['approvals', 'approve'], 2, /needs the item's id/],
        [['approvals', 'show'], 2, /needs the item's id/],
        [['approvals', 'show', 'x', '--scope', 'once'], 2, /approvals show takes only --json/],
        [['approvals', 'show', 'not-an-item'], 1, /^airlock: There is no approval "not-an-item"\.$/],
        [['approvals', 'approve', 'x', '--scope', 'forever'], 2, /--scope must be once, session or rule, got "forever"/],
        [['approvals', 'approve', 'x', '--ttl', '60'], 2, /--rule-scope and --ttl go with --scope rule/],
        [['approvals', 'approve', 'x', '--scope', 'rule', '--ttl', '-1'], 2, /--ttl needs a value|--ttl must be/],
        [['approvals', 'approve', 'x', '--reason', 'r'], 2, /--reason is only for approvals deny/],
        [['approvals', 'deny', 'x'], 2, /needs --reason TEXT/],
        [['approvals', 'deny', 'x', '--reason', '   '], 2, /needs --reason TEXT/],
        [['approvals', 'deny', 'x', '--reason', 'r', '--scope', 'once'], 2, /only for approvals approve/],
        [['approvals', 'approve', 'not-an-item'], 1, /^airlock: There is no approval "not-an-item"\.$/],
        [['rules', 'rm', 'not-a-rule'], 1, /^airlock: There is no rule "not-a-rule"\.$/],
        [['rules', 'drop', 'x'], 2, /rules takes list or rm, not "drop"/]
      ]
      for (const [args, code, message] of cases) {
        const run = await cli(...args)
        expect(run.code, args.join(' ')).toBe(code)
        expect(run.stderr.trim(), args.join(' ')).toMatch(message)
        expect(run.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1)
      }
      const noHome = await runAirlockAsync(['approvals', 'list', '--home', `${dir.path}/missing`])
      expect(noHome.code).toBe(1)
      expect(noHome.stderr).toMatch(/no Airlock database/)
      await waitFor(() => (h.pending().length === 0 ? true : undefined))
    },
    cliTimeoutMs
  )
})
