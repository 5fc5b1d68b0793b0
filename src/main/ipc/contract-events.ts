import type { z } from 'zod'
import { channelOf, type NamespaceSpec } from '@shared/ipc'

/** Receives every contract event as (channel, payload); transports forward these to consoles. */
export type ContractEventListener = (channel: string, payload: unknown) => void

/** Fan-out of contract events from services to every connected console, payloads validated. */
export class ContractEventHub<C extends Record<string, NamespaceSpec>> {
  private readonly listeners = new Set<ContractEventListener>()

  constructor(private readonly contract: C) {}

  /** Publishes one event; the payload must match its contract schema. */
  publish<N extends keyof C & string, E extends keyof C[N]['events'] & string>(namespace: N, event: E, payload: z.input<C[N]['events'][E]['payload']>): void {
    const spec = this.contract[namespace]!.events[event]!
    const value = spec.payload.parse(payload)
    const channel = channelOf(namespace, event)
    for (const listener of this.listeners) listener(channel, value)
  }

  /** Adds a listener for every event; returns the unsubscribe function. */
  subscribe(listener: ContractEventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}
