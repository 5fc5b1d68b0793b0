import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { FakeProvider } from '../../../test/support/fake-provider'
import { ExecutionResourceManager, PolicyApproval, type ExecutionResourceError, type ResourceEvent } from './index'

const request = { requirementId: 'r', kind: 'code_execution', scope: 'session', reason: 'test', summary: 'run code' }
const nonInteractive = () =>
  new PolicyApproval({ promptIo: () => ({ input: new PassThrough(), output: new PassThrough(), interactive: false, timeoutMs: 50 }) })

function managerWith(approval: PolicyApproval, settings?: Record<string, unknown>) {
  const provider = new FakeProvider('fake')
  const manager = new ExecutionResourceManager({ approval, settings: settings ? { get: (key) => settings[key] } : undefined })
  manager.registerProvider(provider)
  const events: ResourceEvent[] = []
  manager.events.on('*', (event) => events.push(event))
  return { manager, provider, events }
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
    return 'resolved'
  } catch (error) {
    return (error as ExecutionResourceError).code
  }
}

describe('PolicyApproval registry', () => {
  it('has the built-in handlers: fail_closed → pending, auto_approve → approved, input_timeout_fail without a TTY → denied', async () => {
    const approval = nonInteractive()
    expect((await approval.resolve(request, { handler: 'fail_closed' })).status).toBe('pending')
    expect((await approval.resolve(request, { handler: 'auto_approve' })).status).toBe('approved')
    expect(await approval.resolve(request)).toMatchObject({ status: 'denied', reason: expect.stringMatching(/no interactive terminal/) })
  })

  it('input_timeout_fail asks on a terminal: yes approves, anything else or silence denies', async () => {
    for (const [answer, status] of [
      ['y\n', 'approved'],
      ['no\n', 'denied'],
      [undefined, 'denied']
    ] as const) {
      const input = new PassThrough()
      const output = new PassThrough()
      const approval = new PolicyApproval({ promptIo: () => ({ input, output, interactive: true, timeoutMs: 100 }) })
      const decision = approval.resolve(request)
      if (answer) input.write(answer)
      expect((await decision).status).toBe(status)
      expect(String(output.read())).toContain('approve run code?')
    }
  })

  it('registers handlers, refuses duplicates unless replaced, and normalises booleans', async () => {
    const approval = nonInteractive()
    approval.registerHandler('console', () => true)
    expect(() => approval.registerHandler('console', () => false)).toThrow(/already registered/)
    approval.registerHandler('console', () => false, { replace: true })
    approval.setDefaultHandler('console')
    expect(approval.defaultHandlerName).toBe('console')
    expect((await approval.resolve(request)).status).toBe('denied')
    expect(() => approval.setDefaultHandler('nobody')).toThrow(/No approval handler named "nobody"/)
  })

  it('fails closed: a throwing handler, a nonsense answer or an unknown handler name deny', async () => {
    const approval = nonInteractive()
    approval.registerHandler('broken', () => {
      throw new Error('queue offline')
    })
    approval.registerHandler('silly', () => ({ status: 'maybe' }) as never)
    expect(await approval.resolve(request, { handler: 'broken' })).toMatchObject({ status: 'denied', reason: expect.stringMatching(/queue offline/) })
    expect((await approval.resolve(request, { handler: 'silly' })).status).toBe('denied')
    expect((await approval.resolve(request, { handler: 'ghost' })).status).toBe('denied')
  })
})

describe('the approval gate in ensure', () => {
  it('approval required + the default non-interactive handler → denied, nothing started', async () => {
    const { manager, provider, events } = managerWith(nonInteractive())
    expect(await codeOf(manager.ensure({ kind: 'code_execution', approvalRequired: true }))).toBe('execution_resource.approval_denied')
    expect(provider.probes + provider.ensures).toBe(0)
    expect(manager.list()).toEqual([])
    expect(events.map((e) => e.type)).toEqual([
      'execution_resource.declared',
      'execution_resource.approval_required',
      'policy.approval.requested',
      'policy.approval.denied'
    ])
  })

  it('approvalMode always with a fail_closed handler → approval_required (pending), nothing started', async () => {
    const { manager, provider, events } = managerWith(nonInteractive())
    const code = await codeOf(manager.ensure({ kind: 'code_execution', policy: { approvalMode: 'always', approvalHandler: 'fail_closed' } }))
    expect(code).toBe('execution_resource.approval_required')
    expect(provider.ensures).toBe(0)
    expect(events.at(-1)?.type).toBe('policy.approval.pending')
  })

  it('approvalMode never denies whenever approval would be needed, even with auto_allow', async () => {
    const { manager, provider } = managerWith(nonInteractive(), { 'access_control_policy.auto_allow': true })
    expect(await codeOf(manager.ensure({ kind: 'code_execution', approvalRequired: true, policy: { approvalMode: 'never' } }))).toBe(
      'execution_resource.approval_denied'
    )
    expect(provider.ensures).toBe(0)
  })

  it('access_control_policy.auto_allow approves the gate (and nothing more)', async () => {
    const { manager, events } = managerWith(nonInteractive(), { 'access_control_policy.auto_allow': true })
    const handle = await manager.ensure({ kind: 'code_execution', approvalRequired: true })
    expect(handle.policy.autoAllow).toBe(true)
    expect(events.find((e) => e.type === 'policy.approval.approved')?.payload.reason).toBe('access_control_policy.auto_allow')
  })

  it('asks again before reusing a handle: approval comes before reuse', async () => {
    const approval = nonInteractive()
    let answers = [true, false]
    approval.registerHandler('console', () => answers.shift() ?? false).setDefaultHandler('console')
    const { manager, provider } = managerWith(approval)
    const requirement = manager.declare({ kind: 'code_execution', approvalRequired: true })
    await manager.ensure(requirement.requirementId)
    expect(await codeOf(manager.ensure(requirement.requirementId))).toBe('execution_resource.approval_denied')
    expect(manager.list()[0]?.refCount).toBe(1)
    expect(provider.ensures).toBe(1)
    answers = []
  })

  it('applies an approver policy override to the handle policy', async () => {
    const approval = nonInteractive()
    approval.registerHandler('console', () => ({ status: 'approved', reason: 'operator', policyOverride: { networkMode: 'none', timeoutSeconds: 5 } }))
    const { manager } = managerWith(approval)
    const handle = await manager.ensure({ kind: 'code_execution', approvalRequired: true, policy: { approvalHandler: 'console', networkMode: 'full' } })
    expect(handle.policy).toMatchObject({ networkMode: 'none', timeoutSeconds: 5 })
  })
})
