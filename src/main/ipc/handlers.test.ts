import { airlockContract } from '@shared/ipc'
import { describe, expect, it } from 'vitest'
import { createCallDispatcher } from './call-dispatcher'
import { createContractHandlers, type HandlerServices } from './handlers'

/**
 * The handlers behind the real dispatcher; the resource manager is the boundary here, so a
 * stand-in knows one live handle `h-live` and records what was asked of it.
 */
function dispatcherWithOneHandle() {
  const asked: string[] = []
  const resources = {
    list: () => [{ handleId: 'h-live' }],
    checkHealth: async (handleId: string) => (asked.push(`checkHealth:${handleId}`), handleId === 'h-live' ? 'ready' : undefined),
    forceRelease: async (handleId: string) => void asked.push(`forceRelease:${handleId}`)
  }
  const services = { resources } as unknown as HandlerServices
  return { asked, dispatch: createCallDispatcher(airlockContract, createContractHandlers(services)) }
}

const ctx = { transport: 'websocket' as const }

describe('resource handlers', () => {
  it('answers a health check of a live handle with its status', async () => {
    const { dispatch } = dispatcherWithOneHandle()
    await expect(dispatch('airlock:resources:checkHealth', { handleId: 'h-live' }, ctx)).resolves.toEqual({ ok: true, value: { status: 'ready' } })
  })

  it('refuses a health check of an unknown handle with not_found naming it', async () => {
    const { dispatch } = dispatcherWithOneHandle()
    await expect(dispatch('airlock:resources:checkHealth', { handleId: 'h-gone' }, ctx)).resolves.toEqual({
      ok: false,
      error: { code: 'ipc.not_found', message: 'No live handle h-gone.' }
    })
  })

  it('releases a live handle, and answers released:false for an unknown one without touching the manager', async () => {
    const { asked, dispatch } = dispatcherWithOneHandle()
    await expect(dispatch('airlock:resources:release', { handleId: 'h-gone' }, ctx)).resolves.toEqual({ ok: true, value: { released: false } })
    expect(asked).toEqual([])
    await expect(dispatch('airlock:resources:release', { handleId: 'h-live' }, ctx)).resolves.toEqual({ ok: true, value: { released: true } })
    expect(asked).toEqual(['forceRelease:h-live'])
  })
})
