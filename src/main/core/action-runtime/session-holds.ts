import type { ExecutionResourceManager } from '../manager'
import { canonicalJson } from '../reuse-key'
import type { ResourceHandle, ResourceRequirementInput } from '../types'

/**
 * The resources a session keeps warm across its calls (its shell, its container): ensured once
 * per session and requirement, held (one reference) until the session ends, when the whole
 * `session` scope of that session is released. A failed ensure is not remembered: the next call
 * tries again.
 */
export class SessionHolds {
  private readonly held = new Map<string, Map<string, Promise<ResourceHandle>>>()

  constructor(private readonly manager: ExecutionResourceManager) {}

  /** The session's handle for `requirement` (scope forced to `session`, owner the session). */
  async hold(sessionId: string, requirement: ResourceRequirementInput, signal?: AbortSignal): Promise<ResourceHandle> {
    const scoped: ResourceRequirementInput = { ...requirement, scope: 'session', ownerId: sessionId }
    const { requirementId: _ignored, actionCallId: _call, ...identity } = scoped
    const key = canonicalJson(identity)
    let holds = this.held.get(sessionId)
    if (!holds) this.held.set(sessionId, (holds = new Map()))
    let pending = holds.get(key)
    if (pending) {
      const handle = await pending.catch(() => undefined)
      // Health is checked before each reuse (SPEC §3.2); a handle that went unhealthy, or was
      // released from the console, is given back and replaced.
      const health = handle && handle.status === 'ready' ? await this.manager.checkHealth(handle.handleId) : undefined
      if (handle && health === 'ready') return handle
      if (holds.get(key) === pending) holds.delete(key)
      if (handle && health !== undefined) await this.manager.release(handle).catch(() => undefined)
    }
    pending = this.manager.ensure(scoped, { scope: 'session', ownerId: sessionId, signal })
    holds.set(key, pending)
    pending.catch(() => {
      if (holds.get(key) === pending) holds.delete(key)
    })
    return pending
  }

  /** Ends a session's holds: releases every handle of its `session` scope. */
  async end(sessionId: string): Promise<void> {
    const holds = this.held.get(sessionId)
    this.held.delete(sessionId)
    if (holds) await Promise.allSettled(holds.values())
    await this.manager.releaseScope('session', sessionId)
  }

  /** Sessions that hold something now. */
  sessions(): string[] {
    return [...this.held.keys()]
  }
}
