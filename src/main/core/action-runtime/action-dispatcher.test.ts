import { AirlockError } from '@shared/errors'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agentProfileDefaults } from '@shared/agents'
import { FakeProvider } from '../../../../test/support/fake-provider'
import { ExecutionResourceManager } from '../manager'
import { PolicyApproval } from '../policy-approval'
import type { ActionCallEnd, ActionCallStart, ActionHistory } from './action-history'
import { ActionRegistry } from './action-registry'
import type { ActionAgent, ActionContext, AnyActionSpec } from './action-spec'
import { ActionDispatcher } from './action-dispatcher'

// The provider is the boundary here (the dispatcher's own flow is under test), so a fake provider is fine.

class RecordingHistory implements ActionHistory {
  readonly starts: ActionCallStart[] = []
  readonly ends: ActionCallEnd[] = []
  begin(start: ActionCallStart) {
    this.starts.push(start)
  }
  readonly waits: [string, string | null][] = []
  finish(end: ActionCallEnd) {
    this.ends.push(end)
  }
  waiting(callId: string, since: string | null) {
    this.waits.push([callId, since])
  }
}

const agent = (overrides: Partial<ActionAgent> = {}): ActionAgent => ({
  agentId: 'coder',
  sessionId: 'session-1',
  workspace: '/nonexistent',
  profile: agentProfileDefaults,
  tools: new Set(['echo', 'uses_resource', 'waits', 'always_asks']),
  ...overrides
})

const echo: AnyActionSpec = {
  name: 'echo',
  description: 'returns its input',
  inputSchema: z.object({ text: z.string().max(10) }).strict(),
  effects: 'read',
  executor: { execute: async ({ input }: ActionContext<{ text: string }>) => ({ data: { echoed: input.text } }) }
}

function setup(options: { approval?: PolicyApproval; gate?: () => 'enabled' | 'disabled' | 'removed'; autoAllow?: () => boolean } = {}) {
  const provider = new FakeProvider('fake', ['thing'])
  const manager = new ExecutionResourceManager({ approval: options.approval }).registerProvider(provider)
  const registry = new ActionRegistry()
  const history = new RecordingHistory()
  const dispatcher = new ActionDispatcher({ manager, registry, history, agentGate: options.gate, autoAllow: options.autoAllow })
  registry.register(echo)
  let seen: unknown
  registry.register({
    name: 'uses_resource',
    description: 'ensures a thing and reports it',
    inputSchema: z.object({ fail: z.boolean().optional() }).strict(),
    effects: 'execute',
    executionResources: { thing: { kind: 'thing' }, other: { kind: 'thing', reuseKey: 'second' } },
    executor: {
      execute: async ({ resources, input }: ActionContext<{ fail?: boolean }>) => {
        seen = resources.thing
        if (input.fail) throw new AirlockError('tool.broke', 'the tool broke')
        return { data: { ok: true } }
      }
    }
  })
  registry.register({
    name: 'waits',
    description: 'waits until aborted',
    inputSchema: z.object({}).strict(),
    effects: 'execute',
    executor: { execute: ({ signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ status: 'cancelled' }))) }
  })
  registry.register({ ...echo, name: 'always_asks', approval: 'always' })
  return { provider, manager, registry, history, dispatcher, seen: () => seen }
}

describe('ActionDispatcher', () => {
  it('runs a call and records a running row before the executor, then its end', async () => {
    const { dispatcher, history } = setup()
    const result = await dispatcher.execute({ tool: 'echo', input: { text: 'hi' }, agent: agent() })
    expect(result).toMatchObject({ ok: true, status: 'success', data: { echoed: 'hi' }, artifacts: [], diagnostics: [] })
    expect(history.starts).toHaveLength(1)
    expect(history.ends[0]).toMatchObject({ callId: result.meta.callId, status: 'success' })
  })

  it('refuses bad input naming the field, unknown tools, and tools the agent was not given', async () => {
    const { dispatcher, history } = setup()
    const bad = await dispatcher.execute({ tool: 'echo', input: { text: 'far too long text' }, agent: agent() })
    expect(bad).toMatchObject({ ok: false, status: 'error', error: { code: 'invalid_input' } })
    expect(bad.error!.message).toContain('text:')
    const extra = await dispatcher.execute({ tool: 'echo', input: { text: 'a', more: 1 }, agent: agent() })
    expect(extra.error!.message).toMatch(/more/)
    expect((await dispatcher.execute({ tool: 'nope', input: {}, agent: agent() })).error!.code).toBe('unknown_tool')
    const notGiven = await dispatcher.execute({ tool: 'echo', input: { text: 'a' }, agent: agent({ tools: new Set() }) })
    expect(notGiven).toMatchObject({ status: 'blocked', meta: { policy: { rule: 'capability.not_enabled' } } })
    expect(history.ends.map((end) => end.status)).toEqual(['error', 'error', 'error', 'blocked'])
  })

  it('ensures the spec resources for the call and releases them after, even when the executor throws', async () => {
    const { dispatcher, provider, manager, seen } = setup()
    const ok = await dispatcher.execute({ tool: 'uses_resource', input: {}, agent: agent() })
    expect(ok.status).toBe('success')
    expect(seen()).toMatchObject({ provider: 'fake' })
    expect(provider.ensures).toBe(2)
    expect(provider.releases).toBe(2)
    const broke = await dispatcher.execute({ tool: 'uses_resource', input: { fail: true }, agent: agent() })
    expect(broke).toMatchObject({ status: 'error', error: { code: 'tool.broke', message: 'the tool broke' } })
    expect(provider.releases).toBe(4)
    expect(manager.list()).toEqual([])
  })

  it('rolls back a partial ensure and turns a failed release into an error', async () => {
    const { dispatcher, provider, manager } = setup()
    let calls = 0
    provider.ensure = async function (this: FakeProvider) {
      calls += 1
      if (calls === 2) throw new Error('second start failed')
      return { resource: { provider: 'fake', serial: calls, secretSocket: 'live-object' }, meta: { serial: calls } }
    }.bind(provider)
    const partial = await dispatcher.execute({ tool: 'uses_resource', input: {}, agent: agent() })
    expect(partial).toMatchObject({ status: 'error', error: { message: 'second start failed' } })
    expect(provider.releases).toBe(1)
    expect(manager.list()).toEqual([])

    calls = 10
    provider.releaseFailures = 1
    const leaked = await dispatcher.execute({ tool: 'uses_resource', input: {}, agent: agent() })
    expect(leaked).toMatchObject({ ok: false, status: 'error', error: { code: 'execution_resource.release_failed' } })
    expect(leaked.error!.message).toMatch(/^completed, but its execution resource could not be released safely/)
  })

  it('blocks on a deny hook with its rule, and a throwing hook fails closed', async () => {
    const { dispatcher, history } = setup()
    const off = dispatcher.hooks.onPreToolCall(({ tool }) =>
      tool === 'echo' ? { decision: 'deny', rule: 'denylist.echo', reason: 'echo is denied' } : undefined
    )
    const denied = await dispatcher.execute({ tool: 'echo', input: { text: 'a' }, agent: agent() })
    expect(denied).toMatchObject({ status: 'blocked', meta: { policy: { rule: 'denylist.echo' } }, error: { message: 'echo is denied' } })
    off()
    dispatcher.hooks.onPreToolCall(() => {
      throw new Error('hook exploded')
    })
    const failed = await dispatcher.execute({ tool: 'echo', input: { text: 'a' }, agent: agent() })
    expect(failed).toMatchObject({ status: 'blocked', meta: { policy: { rule: 'policy.hook_failed' } } })
    expect(history.ends.at(-1)!.policy).toMatchObject({ rule: 'policy.hook_failed' })
  })

  it('asks the approval handler: pending → approval_required, denied → blocked, approved → runs', async () => {
    const approval = new PolicyApproval()
    const answers: ('pending' | 'denied' | 'approved')[] = ['pending', 'denied', 'approved']
    const asked: unknown[] = []
    approval.registerHandler('test', (request) => {
      asked.push(request)
      return { status: answers.shift()!, reason: 'the test decided' }
    })
    approval.setDefaultHandler('test')
    const { dispatcher } = setup({ approval })
    const call = () => dispatcher.execute({ tool: 'always_asks', input: { text: 'x' }, agent: agent() })
    expect((await call()).status).toBe('approval_required')
    expect((await call()).status).toBe('blocked')
    const approved = await call()
    expect(approved).toMatchObject({ status: 'success', meta: { approval: { status: 'approved' } } })
    expect(asked[0]).toMatchObject({ tool: 'always_asks', agentId: 'coder', sessionId: 'session-1' })
  })

  it('auto_allow approves what would ask, and never what a hook denies', async () => {
    const { dispatcher } = setup({ autoAllow: () => true })
    const approved = await dispatcher.execute({ tool: 'always_asks', input: { text: 'x' }, agent: agent() })
    expect(approved).toMatchObject({ status: 'success', meta: { approval: { status: 'approved', reason: 'access_control_policy.auto_allow' } } })
    dispatcher.hooks.onPreToolCall(() => ({ decision: 'deny', rule: 'deny.test' }))
    expect(await dispatcher.execute({ tool: 'always_asks', input: { text: 'x' }, agent: agent() })).toMatchObject({
      status: 'blocked',
      meta: { policy: { rule: 'deny.test' } }
    })
  })

  it('ends a call blocked when its agent is disabled before it runs or while it runs', async () => {
    let state: 'enabled' | 'disabled' = 'disabled'
    const { dispatcher } = setup({ gate: () => state })
    expect((await dispatcher.execute({ tool: 'echo', input: { text: 'a' }, agent: agent() })).error!.code).toBe('policy.agent_disabled')
    state = 'enabled'
    const running = dispatcher.execute({ tool: 'waits', input: {}, agent: agent() })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(dispatcher.cancelAgent('coder', 'agent_disabled')).toBe(1)
    expect(await running).toMatchObject({ status: 'blocked', error: { code: 'policy.agent_disabled' } })
  })

  it('tells history while a call waits for the operator, and records the wait apart (waitedMs)', async () => {
    const approval = new PolicyApproval()
    approval.registerHandler('test', async () => {
      await new Promise((resolve) => setTimeout(resolve, 60))
      return { status: 'approved', reason: 'the operator approved' }
    })
    approval.setDefaultHandler('test')
    const { dispatcher, history } = setup({ approval })
    const result = await dispatcher.execute({ tool: 'always_asks', input: { text: 'x' }, agent: agent() })
    const callId = result.meta.callId as string
    expect(history.waits.map(([id, since]) => [id, since === null ? null : 'since'])).toEqual([
      [callId, 'since'],
      [callId, null]
    ])
    const waited = history.ends[0]!.approval!.waitedMs!
    expect(waited).toBeGreaterThanOrEqual(50)
    expect(history.ends[0]!.durationMs).toBeGreaterThanOrEqual(waited)
  })

  it("the operator's cancel ends a running call or a waiting one cancelled, saying the operator did it; an ended call is not cancelled", async () => {
    const approval = new PolicyApproval()
    approval.registerHandler(
      'test',
      (request) => new Promise((resolve) => request.signal?.addEventListener('abort', () => resolve({ status: 'pending', reason: 'ended' })))
    )
    approval.setDefaultHandler('test')
    const { dispatcher, history } = setup({ approval })
    for (const tool of ['waits', 'always_asks']) {
      const running = dispatcher.execute({ tool, input: tool === 'waits' ? {} : { text: 'x' }, agent: agent() })
      await new Promise((resolve) => setTimeout(resolve, 10))
      const [callId] = dispatcher.running()
      expect(dispatcher.decided(callId!)).toBeDefined()
      expect(dispatcher.cancel(callId!)).toBe(true)
      expect(await running).toMatchObject({ status: 'cancelled', error: { code: 'cancelled', message: expect.stringMatching(/operator cancelled/) } })
      expect(history.ends.at(-1)).toMatchObject({ status: 'cancelled', error: { message: expect.stringMatching(/operator cancelled/) } })
      expect(dispatcher.cancel(callId!)).toBe(false)
      expect(dispatcher.decided(callId!)).toBeUndefined()
    }
  })

  it('what is decided about a call in flight is told redacted, as history records it', async () => {
    const { dispatcher } = setup()
    const canary = 'canary-4d1e7b'
    dispatcher.hooks.onPreToolCall(() => ({ decision: 'allow', commands: [['curl', '-H', `token: ${canary}`]], reason: `sends ${canary}` }))
    const running = dispatcher.execute({ tool: 'waits', input: {}, agent: agent({ secrets: [canary] }) })
    await new Promise((resolve) => setTimeout(resolve, 10))
    const decided = dispatcher.decided(dispatcher.running()[0]!)
    expect(JSON.stringify(decided)).toContain('[redacted]')
    expect(JSON.stringify(decided)).not.toContain(canary)
    dispatcher.cancel(dispatcher.running()[0]!)
    await running
  })

  it('cancels through the call signal', async () => {
    const { dispatcher } = setup()
    const controller = new AbortController()
    const running = dispatcher.execute({ tool: 'waits', input: {}, agent: agent(), signal: controller.signal })
    setTimeout(() => controller.abort(), 5)
    expect((await running).status).toBe('cancelled')
  })

  it('never records a known secret or a credential shape', async () => {
    const { dispatcher, history } = setup()
    const canary = 'canary-7f3a9b2c'
    await dispatcher.execute({ tool: 'echo', input: { text: canary.slice(0, 10) }, agent: agent({ secrets: [canary.slice(0, 10)] }) })
    await dispatcher.execute({ tool: 'echo', input: { text: 'x', headers: { Authorization: canary } }, agent: agent({ secrets: [canary] }) })
    const recorded = JSON.stringify([history.starts, history.ends])
    expect(recorded).not.toContain(canary)
    expect(recorded).not.toContain(canary.slice(0, 10))
  })

  it('refuses a caller call id that is not a UUID, and a history that cannot record stops the call', async () => {
    const { dispatcher, manager, registry } = setup()
    expect((await dispatcher.execute({ callId: '../x', tool: 'echo', input: { text: 'a' }, agent: agent() })).error!.code).toBe('invalid_input')
    let ran = false
    registry.register({ ...echo, name: 'marks', executor: { execute: async () => ((ran = true), {}) } })
    const broken = new ActionDispatcher({
      manager,
      registry,
      history: {
        begin: () => {
          throw new Error('disk full')
        },
        finish: () => undefined
      }
    })
    const result = await broken.execute({ tool: 'marks', input: { text: 'a' }, agent: agent({ tools: new Set(['marks']) }) })
    expect(result).toMatchObject({ status: 'error', error: { code: 'history_unavailable' } })
    expect(ran).toBe(false)
  })
})
