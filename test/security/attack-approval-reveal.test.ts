// Revealing what redaction hid in an approval request (issue 27): the operator deciding a pending
// request may see the values once, audited; nobody sees them after the request is decided, for a
// request that hid nothing, through the recorded item, or in any event or record.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { approvalHost } from '../support/approval-host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
const secret = 'sk-live-5f8a2c91d7e04b36a1'

describe.skipIf(skip !== undefined)(`reveal of redacted values in a pending approval${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let approvals: Awaited<ReturnType<typeof approvalHost>>
  const published: string[] = []
  beforeAll(async () => {
    dir = makeTempDir('airlock-reveal-', { outsideTmp: true })
    approvals = await approvalHost(join(dir.path, 'home'))
    approvals.host.events.subscribe((channel, payload) => published.push(`${channel} ${JSON.stringify(payload)}`))
  })
  afterAll(async () => {
    await approvals.host.dispose()
    dir.remove()
  })

  it('reveals the input once to the operator while the call waits, audited; refuses after the decision; the values reach no record or event', async () => {
    const agent = approvals.agent('deployer', { capabilities: ['shell'], mcpServers: [{ name: 'vault', command: ['true'], env: { DEPLOY_TOKEN: secret } }] })
    const asked = agent.call('run_command', { command: `DEPLOY_TOKEN=${secret} ./deploy.sh --prod` })
    const [item] = await approvals.waitForPending(1)
    expect(item!.summary).toContain('[redacted]')
    expect(JSON.stringify(item)).not.toContain(secret)
    const revealed = await approvals.ipc('approvals', 'reveal', { id: item!.id })
    expect(revealed).toMatchObject({ ok: true, value: { input: { command: `DEPLOY_TOKEN=${secret} ./deploy.sh --prod` } } })
    const audit = approvals.host.store.events.recent({ prefixes: ['approval.revealed'] })
    expect(audit.map((event) => event.payload)).toEqual([{ approvalId: item!.id, agentId: 'deployer', by: 'console' }])
    await approvals.ipc('approvals', 'decide', { id: item!.id, decision: 'deny', reason: 'not now' })
    expect((await asked).status).toBe('blocked')
    // Decided: the call no longer waits, and what it hid went with it.
    expect(await approvals.ipc('approvals', 'reveal', { id: item!.id })).toMatchObject({ ok: false, error: { code: 'approval.not_revealable' } })
    expect(published.join('\n')).not.toContain(secret)
    const dump = approvals.host.store.db.prepare("select group_concat(request_json || coalesce(decision_json, '')) from approvals").pluck().get() as string
    expect(dump).not.toContain(secret)
  })

  it('refuses a request that hid nothing, and an id that is no request', async () => {
    const agent = approvals.agent('builder', { capabilities: ['shell'] })
    const asked = agent.call('run_command', { command: 'make all' })
    const [item] = await approvals.waitForPending(1)
    expect(await approvals.ipc('approvals', 'reveal', { id: item!.id })).toMatchObject({ ok: false, error: { code: 'approval.not_revealable' } })
    expect(await approvals.ipc('approvals', 'reveal', { id: 'no-such-approval' })).toMatchObject({ ok: false, error: { code: 'approval.not_found' } })
    await approvals.ipc('approvals', 'decide', { id: item!.id, decision: 'deny', reason: 'no' })
    await asked
  })

  it('two calls that differ only in what redaction hid are two requests: approving the one revealed never runs the other', async () => {
    const other = 'sk-live-0a1b2c3d4e5f60718293'
    const agent = approvals.agent('twins', { capabilities: ['shell'], mcpServers: [{ name: 'vault', command: ['true'], env: { A: secret, B: other } }] })
    const first = agent.call('run_command', { command: `TOKEN=${secret} ./deploy.sh` })
    const second = agent.call('run_command', { command: `TOKEN=${other} ./deploy.sh` })
    const items = await approvals.waitForPending(2)
    expect(new Set(items.map((item) => item.summary)).size).toBe(1)
    expect(items.map((item) => item.count)).toEqual([1, 1])
    for (const item of items) await approvals.ipc('approvals', 'decide', { id: item.id, decision: 'deny', reason: 'no' })
    await Promise.all([first, second])
  })
})
