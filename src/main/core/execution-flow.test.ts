import { describe, expect, it } from 'vitest'
import { FakeProvider } from '../../../test/support/fake-provider'
import { ExecutionResourceManager, createExecution } from './index'

describe('execution flows', () => {
  it('flow close releases its managed handles and leaves unmanaged runtime resources alone', async () => {
    const provider = new FakeProvider('fake', ['sqlite', 'browser'])
    const manager = new ExecutionResourceManager().registerProvider(provider)
    const logger = {
      closed: false,
      close() {
        this.closed = true
      }
    }
    const other = await manager.ensure({ kind: 'sqlite', scope: 'session', ownerId: 'someone-else' })
    const flow = createExecution({
      manager,
      executionResources: { db: { kind: 'sqlite', scope: 'global' }, web: { kind: 'browser' } },
      runtimeResources: { logger }
    })
    flow.start()
    expect(manager.list()).toHaveLength(1)
    const db = await flow.requireResource<{ serial: number }>('db')
    expect(await flow.requireResource('db')).toBe(db)
    await flow.requireResource('web')
    expect(await flow.requireResource('logger')).toBe(logger)
    const dbHandle = flow.handleOf('db')!
    expect(dbHandle).toMatchObject({ scope: 'execution', ownerId: flow.executionId, refCount: 1 })
    await flow.close()
    expect(manager.list().map((h) => h.handleId)).toEqual([other.handleId])
    expect(provider.releases).toBe(2)
    expect(logger.closed).toBe(false)
    await expect(flow.requireResource('db')).rejects.toThrow(/is closed/)
  })

  it('a step cannot use an execution before start, nor a resource it did not name', async () => {
    const manager = new ExecutionResourceManager().registerProvider(new FakeProvider('fake'))
    const flow = createExecution({ manager, executionResources: { code: { kind: 'code_execution' } } })
    await expect(flow.requireResource('code')).rejects.toThrow(/has not started/)
    flow.start()
    await expect(flow.requireResource('gpu')).rejects.toThrow(/no resource named "gpu"/)
    await flow.close()
  })

  it('steps that ask for the same resource at once share one start', async () => {
    const provider = new FakeProvider('fake')
    provider.ensureDelayMs = 10
    const manager = new ExecutionResourceManager().registerProvider(provider)
    const flow = createExecution({ manager, executionResources: { code: { kind: 'code_execution' } } })
    flow.start()
    await Promise.all([flow.requireResource('code'), flow.requireResource('code'), flow.requireResource('code')])
    expect(provider.ensures).toBe(1)
    expect(flow.handleOf('code')?.refCount).toBe(1)
    await flow.close()
    expect(manager.list()).toEqual([])
  })
})
