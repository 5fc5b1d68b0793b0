import { describe, expect, it } from 'vitest'
import { FakeProvider, fullIsolation } from '../../../test/support/fake-provider'
import { ExecutionResourceError, ExecutionResourceManager, type ResourceEvent, type ResourceHandleRecord } from './index'
import { retainedRequirements } from './declared-requirements'

function setup(...providers: FakeProvider[]) {
  const manager = new ExecutionResourceManager()
  for (const provider of providers) manager.registerProvider(provider)
  const events: ResourceEvent[] = []
  manager.events.on('*', (event) => events.push(event))
  return { manager, events, types: () => events.map((e) => e.type) }
}

async function rejection(promise: Promise<unknown>): Promise<ExecutionResourceError> {
  try {
    await promise
  } catch (error) {
    return error as ExecutionResourceError
  }
  throw new Error('expected a rejection')
}

describe('ExecutionResourceManager: declare and inspect', () => {
  it('lazy declare leaves list() empty and starts nothing', () => {
    const provider = new FakeProvider('fake')
    const { manager, types } = setup(provider)
    const requirement = manager.declare({ kind: 'code_execution' })
    expect(manager.list()).toEqual([])
    expect(provider.probes + provider.ensures).toBe(0)
    expect(requirement).toMatchObject({ scope: 'action_call', resourceKey: 'code_execution' })
    expect(requirement.requirementId).toMatch(/^code_execution:[0-9a-f-]{36}$/)
    expect(manager.inspect(requirement.requirementId)).toEqual(requirement)
    expect(types()).toEqual(['execution_resource.declared'])
  })

  it('a string isolation policy in place of axes is a validation error', () => {
    const { manager } = setup(new FakeProvider('fake'))
    for (const field of ['requiredCapabilities', 'preferredCapabilities'] as const) {
      const error = (() => {
        try {
          manager.declare({ kind: 'code_execution', [field]: { isolation: 'required' } })
        } catch (caught) {
          return caught as ExecutionResourceError
        }
      })()
      expect(error?.code).toBe('execution_resource.invalid_requirement')
      expect(error?.message).toMatch(/isolation must be an object of axes/)
    }
  })

  it('refuses unknown requirement fields and bad policies with the field named', () => {
    const { manager } = setup()
    expect(() => manager.declare({ kind: 'sqlite', policy: { netwrokMode: 'full' } } as never)).toThrow(/policy: .*netwrokMode/)
    expect(() => manager.declare({ kind: '' })).toThrow(/kind/)
  })

  it('keeps declared requirements bounded: the oldest without a handle go, those behind a live handle stay', async () => {
    const { manager } = setup(new FakeProvider('fake'))
    const held = await manager.ensure({ kind: 'code_execution', config: { token: 'secret' } })
    const first = manager.declare({ kind: 'code_execution' })
    const declared = Array.from({ length: retainedRequirements + 10 }, () => manager.declare({ kind: 'code_execution' }))
    expect(manager.inspect(first.requirementId)).toBeUndefined()
    expect(manager.inspect(declared.at(-1)!.requirementId)).toMatchObject({ kind: 'code_execution' })
    expect(manager.inspect(held.requirementId)).toMatchObject({ config: { token: 'secret' } })
  })

  it('ensure of an undeclared requirement id is requirement_unknown', async () => {
    const { manager } = setup(new FakeProvider('fake'))
    expect((await rejection(manager.ensure('nope'))).code).toBe('execution_resource.requirement_unknown')
  })
})

describe('ExecutionResourceManager: reuse and release', () => {
  it('same requirement twice gives the same handle with refCount 2; release twice and it is gone', async () => {
    const provider = new FakeProvider('fake')
    const { manager, types } = setup(provider)
    const requirement = manager.declare({ kind: 'code_execution', ownerId: 'agent-1', scope: 'session' })
    const first = await manager.ensure(requirement.requirementId)
    const second = await manager.ensure(requirement.requirementId)
    expect(second.handleId).toBe(first.handleId)
    expect(second.refCount).toBe(2)
    expect(provider.ensures).toBe(1)
    expect(provider.healthChecks).toBe(1)
    await manager.release(first)
    expect(manager.list()).toHaveLength(1)
    expect(provider.releases).toBe(0)
    await manager.release(first.handleId)
    expect(manager.list()).toEqual([])
    expect(provider.releases).toBe(1)
    expect(types().filter((t) => t === 'execution_resource.released')).toHaveLength(1)
    await manager.release(first.handleId)
    expect(provider.releases).toBe(1)
  })

  it('the same requirement for two owners gives two handles', async () => {
    const provider = new FakeProvider('fake')
    const { manager } = setup(provider)
    const a = await manager.ensure({ kind: 'code_execution', scope: 'agent', ownerId: 'a', reuseKey: 'shared' })
    const b = await manager.ensure({ kind: 'code_execution', scope: 'agent', ownerId: 'b', reuseKey: 'shared' })
    expect(a.handleId).not.toBe(b.handleId)
    expect(provider.ensures).toBe(2)
  })

  it('failing release → release_failed, handle quarantined as failed with meta.cleanupError; the next ensure retries it', async () => {
    const provider = new FakeProvider('fake')
    provider.releaseFailures = 1
    const { manager, types } = setup(provider)
    const requirement = { kind: 'code_execution', reuseKey: 'k', ownerId: 'o' }
    const handle = await manager.ensure(requirement)
    const error = await rejection(manager.release(handle))
    expect(error.code).toBe('execution_resource.release_failed')
    expect(error.data).toMatchObject({ handleId: handle.handleId, providerId: 'fake' })
    expect(manager.list()).toHaveLength(1)
    expect(manager.list()[0]).toMatchObject({ status: 'failed', meta: { cleanupError: 'fake could not stop its resource' } })
    expect(types()).toContain('execution_resource.failed')
    const fresh = await manager.ensure(requirement)
    expect(provider.releases).toBe(2)
    expect(fresh.handleId).not.toBe(handle.handleId)
    expect(manager.list().map((h) => h.handleId)).toEqual([fresh.handleId])
  })

  it('a quarantined handle whose retry fails again blocks a new start with release_failed', async () => {
    const provider = new FakeProvider('fake')
    provider.releaseFailures = 2
    const { manager } = setup(provider)
    const handle = await manager.ensure({ kind: 'code_execution', reuseKey: 'k' })
    await rejection(manager.release(handle))
    expect((await rejection(manager.ensure({ kind: 'code_execution', reuseKey: 'k' }))).code).toBe('execution_resource.release_failed')
    expect(provider.ensures).toBe(1)
  })

  it('policy ceilings are resource identity: reuse never hands a call a resource with looser ceilings than its own policy', async () => {
    const provider = new FakeProvider('fake')
    const { manager } = setup(provider)
    const a = await manager.ensure({ kind: 'code_execution', ownerId: 's', policy: { timeoutSeconds: 60, maxOutputBytes: 1000 } })
    const b = await manager.ensure({ kind: 'code_execution', ownerId: 's', policy: { maxOutputBytes: 1000, timeoutSeconds: 60 } })
    expect(b.handleId).toBe(a.handleId)
    const tighter = await manager.ensure({ kind: 'code_execution', ownerId: 's', policy: { timeoutSeconds: 60, maxOutputBytes: 128 } })
    const network = await manager.ensure({ kind: 'code_execution', ownerId: 's', policy: { timeoutSeconds: 60, maxOutputBytes: 1000, networkMode: 'full' } })
    expect(new Set([a.handleId, tighter.handleId, network.handleId]).size).toBe(3)
    expect(provider.ensures).toBe(3)
  })

  it('unhealthy on reuse → a new handle, the old one released once', async () => {
    const provider = new FakeProvider('fake')
    const { manager, types } = setup(provider)
    const old = await manager.ensure({ kind: 'code_execution', reuseKey: 'k' })
    provider.health = 'unhealthy'
    const fresh = await manager.ensure({ kind: 'code_execution', reuseKey: 'k' })
    expect(fresh.handleId).not.toBe(old.handleId)
    expect(fresh.refCount).toBe(1)
    expect(provider.releases).toBe(1)
    expect(types()).toContain('execution_resource.unhealthy')
    expect(manager.list().map((h) => h.handleId)).toEqual([fresh.handleId])
  })

  it('a health check that throws counts as unhealthy; only exactly "ready" is reused', async () => {
    const provider = new FakeProvider('fake')
    const { manager } = setup(provider)
    await manager.ensure({ kind: 'code_execution', reuseKey: 'k' })
    provider.health = () => {
      throw new Error('socket closed')
    }
    await manager.ensure({ kind: 'code_execution', reuseKey: 'k' })
    provider.health = 'ensuring'
    await manager.ensure({ kind: 'code_execution', reuseKey: 'k' })
    expect(provider.ensures).toBe(3)
    expect(provider.releases).toBe(2)
  })

  it('provider ensure throws → the same error object re-thrown, nothing stored, the requirement still inspectable', async () => {
    const provider = new FakeProvider('fake')
    const original = new Error('image not found')
    provider.ensureError = original
    const saved: ResourceHandleRecord[] = []
    const manager = new ExecutionResourceManager({ handleStore: { save: (h) => saved.push(h), remove: () => undefined } })
    manager.registerProvider(provider)
    const types: string[] = []
    manager.events.on('*', (e) => types.push(e.type))
    const requirement = manager.declare({ kind: 'code_execution' })
    await expect(manager.ensure(requirement.requirementId)).rejects.toBe(original)
    expect(manager.list()).toEqual([])
    expect(saved).toEqual([])
    expect(manager.inspect(requirement.requirementId)).toEqual(requirement)
    expect(types.at(-1)).toBe('execution_resource.failed')
  })

  it('50 concurrent ensures of one requirement → one provider start, refCount 50', async () => {
    const provider = new FakeProvider('fake')
    provider.ensureDelayMs = 20
    const { manager } = setup(provider)
    const requirement = manager.declare({ kind: 'code_execution', ownerId: 'session-1', scope: 'session' })
    const handles = await Promise.all(Array.from({ length: 50 }, () => manager.ensure(requirement.requirementId)))
    expect(provider.ensures).toBe(1)
    expect(new Set(handles.map((h) => h.handleId)).size).toBe(1)
    expect(handles[0]!.refCount).toBe(50)
  })

  it('a failed start rejects every concurrent ensure with the same error, one provider start', async () => {
    const provider = new FakeProvider('fake')
    provider.ensureDelayMs = 20
    provider.ensureError = new Error('no engine')
    const { manager } = setup(provider)
    const requirement = manager.declare({ kind: 'code_execution' })
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => manager.ensure(requirement.requirementId)))
    expect(provider.ensures).toBe(1)
    expect(results.every((r) => r.status === 'rejected' && r.reason === provider.ensureError)).toBe(true)
  })

  it('releaseScope only touches its (scope, owner), ends every holder, and reports all failures', async () => {
    const provider = new FakeProvider('fake')
    const { manager } = setup(provider)
    const mine = await manager.ensure({ kind: 'code_execution', scope: 'session', ownerId: 's1', reuseKey: 'a' })
    await manager.ensure({ kind: 'code_execution', scope: 'session', ownerId: 's1', reuseKey: 'a' })
    await manager.ensure({ kind: 'code_execution', scope: 'session', ownerId: 's1', reuseKey: 'b' })
    const other = await manager.ensure({ kind: 'code_execution', scope: 'session', ownerId: 's2', reuseKey: 'a' })
    const agentScoped = await manager.ensure({ kind: 'code_execution', scope: 'agent', ownerId: 's1', reuseKey: 'a' })
    expect(mine.refCount).toBe(2)
    await manager.releaseScope('session', 's1')
    expect(
      manager
        .list()
        .map((h) => h.handleId)
        .sort()
    ).toEqual([other.handleId, agentScoped.handleId].sort())

    provider.releaseFailures = 2
    await manager.ensure({ kind: 'code_execution', scope: 'session', ownerId: 's3', reuseKey: 'x' })
    await manager.ensure({ kind: 'code_execution', scope: 'session', ownerId: 's3', reuseKey: 'y' })
    const error = await rejection(manager.releaseScope('session', 's3'))
    expect(error.code).toBe('execution_resource.release_failed')
    expect((error.data.failures as unknown[]).length).toBe(2)
    expect(manager.list({ scope: 'session', ownerId: 's3', status: 'failed' })).toHaveLength(2)
  })

  it('the live resource is never enumerable: JSON and spreads of a handle do not carry it', async () => {
    const { manager } = setup(new FakeProvider('fake'))
    const handle = await manager.ensure({ kind: 'code_execution' })
    expect(handle.resource).toMatchObject({ secretSocket: 'live-object' })
    expect(JSON.stringify(handle)).not.toContain('live-object')
    expect({ ...handle }).not.toHaveProperty('resource')
    expect(structuredClone({ ...handle })).not.toHaveProperty('resource')
  })

  it('reports handle creation, changes and removal to the handle store, without the live resource', async () => {
    const records = new Map<string, ResourceHandleRecord>()
    const manager = new ExecutionResourceManager({
      handleStore: { save: (h) => records.set(h.handleId, structuredClone(h)), remove: (id) => records.delete(id) }
    })
    manager.registerProvider(new FakeProvider('fake'))
    const handle = await manager.ensure({ kind: 'code_execution', reuseKey: 'k' })
    expect(records.get(handle.handleId)).toMatchObject({ status: 'ready', refCount: 1, providerId: 'fake' })
    expect(records.get(handle.handleId)).not.toHaveProperty('resource')
    await manager.ensure({ kind: 'code_execution', reuseKey: 'k' })
    expect(records.get(handle.handleId)?.refCount).toBe(2)
    await manager.releaseScope('action_call', undefined as never)
    await manager.release(handle)
    await manager.release(handle)
    expect(records.size).toBe(0)
  })
})

describe('ExecutionResourceManager: provider registration and selection', () => {
  it('unknown kind → provider_missing', async () => {
    const { manager } = setup(new FakeProvider('fake'))
    expect((await rejection(manager.ensure({ kind: 'quantum_computer' }))).code).toBe('execution_resource.provider_missing')
  })

  it('duplicate providerId → error; registering the same object twice is a no-op', () => {
    const provider = new FakeProvider('fake')
    const { manager } = setup(provider)
    expect(() => manager.registerProvider(provider)).not.toThrow()
    expect(() => manager.registerProvider(new FakeProvider('fake'))).toThrow(/different provider with id "fake"/)
    expect(() => manager.registerProvider({ providerId: '' } as never)).toThrow(ExecutionResourceError)
  })

  it('candidates [unavailable, wrong language, eligible] → eligible chosen, probes recorded in order, others never ensured', async () => {
    const down = new FakeProvider('down')
    down.probeResult = { available: false, reason: 'daemon not running' }
    const nodeOnly = new FakeProvider('node-only')
    nodeOnly.probeResult = { available: true, capabilities: { languages: ['nodejs'] } }
    const python = new FakeProvider('python')
    python.probeResult = { available: true, capabilities: { languages: ['python', 'bash'] } }
    const { manager } = setup(down, nodeOnly, python)
    const handle = await manager.ensure({
      kind: 'code_execution',
      providerCandidates: ['down', 'node-only', 'python'],
      requiredCapabilities: { language: 'python' }
    })
    expect(handle.providerId).toBe('python')
    const probes = handle.meta.providerProbes as { providerId: string; eligible: boolean; stage: string; reason?: string }[]
    expect(probes.map((p) => [p.providerId, p.stage, p.eligible])).toEqual([
      ['down', 'probe', false],
      ['node-only', 'probe', false],
      ['python', 'probe', true]
    ])
    expect(probes[0]!.reason).toBe('daemon not running')
    expect(probes[1]!.reason).toMatch(/language/)
    expect(handle.meta.selectedCandidate).toEqual({ providerId: 'python', index: 2 })
    expect(down.ensures + nodeOnly.ensures).toBe(0)
  })

  it('no eligible candidate → provider_unavailable with every probe record', async () => {
    const a = new FakeProvider('a')
    a.probeResult = { available: false, reason: 'bwrap missing' }
    const b = new FakeProvider('b')
    b.probeResult = { available: false, reason: 'docker not running' }
    const { manager } = setup(a, b)
    const error = await rejection(manager.ensure({ kind: 'code_execution' }))
    expect(error.code).toBe('execution_resource.provider_unavailable')
    expect(error.message).toMatch(/a: bwrap missing; b: docker not running/)
    expect((error.data.probes as { providerId: string }[]).map((p) => p.providerId)).toEqual(['a', 'b'])
  })

  it('a re-probe that flips before ensure moves on to the next candidate', async () => {
    const flaky = new FakeProvider('flaky')
    flaky.probeResult = (call) => (call === 1 ? { available: true } : { available: false, reason: 'went away' })
    const steady = new FakeProvider('steady')
    const { manager } = setup(flaky, steady)
    const handle = await manager.ensure({ kind: 'code_execution' })
    expect(handle.providerId).toBe('steady')
    expect(flaky.ensures).toBe(0)
    const probes = handle.meta.providerProbes as { providerId: string; stage: string }[]
    expect(probes.map((p) => `${p.providerId}:${p.stage}`)).toEqual(['flaky:probe', 'flaky:reprobe', 'steady:probe'])
  })

  it('an explicit providerId wins over the order', async () => {
    const first = new FakeProvider('first')
    const second = new FakeProvider('second')
    const { manager } = setup(first, second)
    expect((await manager.ensure({ kind: 'code_execution', providerId: 'second', providerCandidates: ['first'] })).providerId).toBe('second')
    expect(first.probes).toBe(0)
  })

  it('follows the code_execution.providers setting, merging candidate config for that candidate only', async () => {
    const bubblewrap = new FakeProvider('bubblewrap')
    bubblewrap.probeResult = { available: false, reason: 'no bwrap' }
    const docker = new FakeProvider('docker')
    const manager = new ExecutionResourceManager({
      settings: { get: (key) => (key === 'code_execution.providers' ? [{ providerId: 'docker', config: { image: 'py:3.11' } }, 'bubblewrap'] : undefined) }
    })
    manager.registerProvider(bubblewrap).registerProvider(docker)
    const handle = await manager.ensure({ kind: 'code_execution', config: { image: 'default', cpus: 1 } })
    expect(handle.providerId).toBe('docker')
    expect(docker.ensured[0]!.config).toEqual({ image: 'py:3.11', cpus: 1 })
    expect(bubblewrap.probes).toBe(0)
  })

  it('without a configured order, every provider of the kind in registration order', async () => {
    const one = new FakeProvider('one')
    one.probeResult = { available: false }
    const two = new FakeProvider('two')
    const manager = new ExecutionResourceManager({ settings: { get: () => undefined } })
    manager.registerProvider(one).registerProvider(two)
    expect((await manager.ensure({ kind: 'code_execution' })).providerId).toBe('two')
  })

  it('preferred isolation: a full match is searched first; otherwise the fallback is recorded', async () => {
    const local = new FakeProvider('local')
    local.probeResult = { available: true, capabilities: { isolation: { ...fullIsolation, processContained: false, mechanism: 'trusted_local' } } }
    const sandbox = new FakeProvider('sandbox')
    sandbox.probeResult = { available: true, capabilities: { isolation: fullIsolation } }
    const { manager } = setup(local, sandbox)
    const preferred = { isolation: { processContained: true, hostFilesystemRestricted: true, privilegeEscalationBlocked: true, syscallsRestricted: true } }
    const isolated = await manager.ensure({ kind: 'code_execution', providerCandidates: ['local', 'sandbox'], preferredCapabilities: preferred })
    expect(isolated.providerId).toBe('sandbox')
    expect(isolated.meta.preferenceFallback).toBeUndefined()
    expect(isolated.meta.isolation).toEqual(fullIsolation)

    const fallback = await manager.ensure({ kind: 'code_execution', providerCandidates: ['local'], preferredCapabilities: preferred })
    expect(fallback.providerId).toBe('local')
    expect(fallback.meta.preferenceFallback).toBe(true)
    expect(fallback.meta.fallback).toMatchObject({ reason: expect.stringMatching(/isolation.processContained/) })
  })

  it('required isolation never falls back', async () => {
    const local = new FakeProvider('local')
    local.probeResult = { available: true, capabilities: { isolation: { ...fullIsolation, syscallsRestricted: false } } }
    const { manager } = setup(local)
    const error = await rejection(manager.ensure({ kind: 'code_execution', requiredCapabilities: { isolation: { syscallsRestricted: true } } }))
    expect(error.code).toBe('execution_resource.provider_unavailable')
    expect(local.ensures).toBe(0)
  })

  it('toolchain minimum versions select the provider whose probe observed a new enough version', async () => {
    const old = new FakeProvider('old')
    old.probeResult = { available: true, capabilities: { toolchains: { python: { available: true, version: '3.9.18' } } } }
    const current = new FakeProvider('current')
    current.probeResult = { available: true, capabilities: { toolchains: { python: { available: true, version: '3.11.2' } } } }
    const { manager } = setup(old, current)
    const handle = await manager.ensure({ kind: 'code_execution', requiredCapabilities: { toolchains: { python: { minimumVersion: '3.10' } } } })
    expect(handle.providerId).toBe('current')
  })
})
