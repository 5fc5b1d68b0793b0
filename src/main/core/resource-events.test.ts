import { describe, expect, it } from 'vitest'
import { FakeProvider } from '../../../test/support/fake-provider'
import { ExecutionResourceManager, PolicyApproval, createExecution, type ResourceEvent } from './index'

const canary = 'CANARY-s3cr3t-7f1d'

describe('event payloads never carry secrets', () => {
  it('secrets in config, policy, env, headers, reuse key and meta appear in no emitted payload', async () => {
    const provider = new FakeProvider('fake', ['mcp'])
    provider.releaseFailures = 1
    const approval = new PolicyApproval()
    approval.registerHandler('console', () => true).setDefaultHandler('console')
    const manager = new ExecutionResourceManager({ approval })
    manager.registerProvider(provider)
    const events: ResourceEvent[] = []
    manager.events.on('*', (event) => events.push(event))
    const requirement = {
      kind: 'mcp',
      approvalRequired: true,
      reuseKey: `key-${canary}`,
      config: { url: 'http://127.0.0.1:1/mcp', headers: { Authorization: `Bearer ${canary}` }, env: { API_TOKEN: canary }, password: canary },
      policy: { workspaceRoots: [`/home/${canary}`], allowedCommandPrefixes: [canary] },
      meta: { note: canary }
    }
    const handle = await manager.ensure(requirement)
    await manager.ensure(requirement)
    await manager.release(handle)
    await manager.release(handle).catch(() => undefined)
    await manager.ensure(requirement).then((h) => manager.release(h))
    provider.ensureError = new Error('upstream refused')
    await manager.ensure({ ...requirement, reuseKey: `other-${canary}` }).catch(() => undefined)
    const flow = createExecution({ manager, executionResources: { upstream: requirement } })
    flow.start()
    provider.ensureError = undefined
    await flow.requireResource('upstream')
    await flow.close()

    const types = new Set(events.map((e) => e.type))
    for (const type of ['declared', 'approval_required', 'ensuring', 'ready', 'releasing', 'released', 'failed']) {
      expect(types).toContain(`execution_resource.${type}`)
    }
    expect(types).toContain('policy.approval.requested')
    expect(types).toContain('policy.approval.approved')
    for (const event of events) {
      const text = JSON.stringify(event)
      expect(text).not.toContain(canary)
      expect(text).not.toContain('live-object')
      expect(Object.keys(event.payload).every((key) => !['config', 'policy', 'meta', 'resource', 'env', 'headers'].includes(key))).toBe(true)
    }
    const ready = events.find((e) => e.type === 'execution_resource.ready')!
    expect(ready.payload.reuseKeyHash).toMatch(/^[0-9a-f]{64}$/)
  })
})
