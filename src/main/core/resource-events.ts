import { resourceEventTypes, type ResourceEventType } from '@shared/resources'
import type { ResourceEvent, ResourceHandle, ResourceRequirement } from './types'

/** The facts an event may be built from; only whitelisted fields of them reach the payload. */
export type ResourceEventFacts = {
  requirement?: ResourceRequirement
  handle?: ResourceHandle
  providerId?: string
  reuseKeyHash?: string
  error?: unknown
  reason?: string
  handler?: string
}

/**
 * Builds an event payload from ids, kind, scope, owner, provider, status, refCount, the reuse-key
 * hash, a reason and an error message. Never config, policy, env, headers, meta or live objects:
 * the whitelist is the only way in.
 */
export function eventPayload(facts: ResourceEventFacts): Record<string, unknown> {
  const { requirement, handle } = facts
  const payload: Record<string, unknown> = {
    requirementId: handle?.requirementId ?? requirement?.requirementId,
    handleId: handle?.handleId,
    kind: handle?.kind ?? requirement?.kind,
    scope: handle?.scope ?? requirement?.scope,
    ownerId: handle?.ownerId ?? requirement?.ownerId,
    providerId: handle?.providerId ?? facts.providerId,
    status: handle?.status,
    refCount: handle?.refCount,
    reuseKeyHash: facts.reuseKeyHash ?? (typeof handle?.meta.reuseKeyHash === 'string' ? handle.meta.reuseKeyHash : undefined),
    actionCallId: handle?.actionCallId ?? requirement?.actionCallId,
    reason: facts.reason,
    handler: facts.handler,
    error: facts.error === undefined ? undefined : facts.error instanceof Error ? facts.error.message : String(facts.error)
  }
  for (const key of Object.keys(payload)) if (payload[key] === undefined) delete payload[key]
  return payload
}

/** A listener of one event type or of all (`'*'`). */
export type ResourceEventListener = (event: ResourceEvent) => void

/** The event bus of the core: typed emit, subscription by type or `'*'`, listeners isolated from each other. */
export class ResourceEventBus {
  private readonly listeners = new Map<string, Set<ResourceEventListener>>()

  /** Subscribes to one type or `'*'`; returns the unsubscribe function. */
  on(type: ResourceEventType | '*' | (string & {}), listener: ResourceEventListener): () => void {
    const set = this.listeners.get(type) ?? new Set()
    set.add(listener)
    this.listeners.set(type, set)
    return () => set.delete(listener)
  }

  /** Emits one event built from whitelisted facts. A throwing listener never breaks the emitter. */
  emit(type: ResourceEventType, facts: ResourceEventFacts): void {
    const event: ResourceEvent = { type, payload: eventPayload(facts), at: new Date().toISOString() }
    for (const listener of [...(this.listeners.get(type) ?? []), ...(this.listeners.get('*') ?? [])]) {
      try {
        listener(event)
      } catch (error) {
        console.error(`Airlock: a listener of ${type} failed`, error)
      }
    }
  }
}

export { resourceEventTypes, type ResourceEventType }
