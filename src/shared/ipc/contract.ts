import type { z } from 'zod'
import type { Result } from '../result'

/** One request/response call of a namespace: zod schemas for its input and output. */
export type CallSpec = { input: z.ZodType; output: z.ZodType }

/** One event a namespace pushes to the console. */
export type EventSpec = { payload: z.ZodType }

/** A namespace of the typed contract: its calls and events. */
export type NamespaceSpec = {
  calls: Record<string, CallSpec>
  events: Record<string, EventSpec>
}

/** Every IPC channel starts with this; main and preload reject anything else. */
export const channelPrefix = 'airlock:'

/** Builds the channel name of a call or event: `airlock:<namespace>:<name>`. */
export function channelOf(namespace: string, name: string): string {
  return `${channelPrefix}${namespace}:${name}`
}

/** Splits a channel name into namespace and name, or undefined when it is not one of ours. */
export function parseChannel(channel: string): { namespace: string; name: string } | undefined {
  const match = /^airlock:([a-z][a-zA-Z]*):([a-z][a-zA-Z]*)$/.exec(channel)
  return match ? { namespace: match[1]!, name: match[2]! } : undefined
}

/** Name of the listener method for an event: `changed` → `onChanged`. */
export type ListenerName<E extends string> = `on${Capitalize<E>}`

/** The listener method name for an event name. */
export function listenerName(event: string): string {
  return `on${event.charAt(0).toUpperCase()}${event.slice(1)}`
}

type CallArgs<S extends CallSpec> = Record<string, never> extends z.input<S['input']> ? [input?: z.input<S['input']>] : [input: z.input<S['input']>]

/** The client-side API of one namespace: a method per call, an `onX(cb) → unsubscribe` per event. */
export type NamespaceApi<S extends NamespaceSpec> = {
  [C in keyof S['calls']]: (...args: CallArgs<S['calls'][C]>) => Promise<Result<z.output<S['calls'][C]['output']>>>
} & {
  [E in keyof S['events'] & string as ListenerName<E>]: (listener: (payload: z.output<S['events'][E]['payload']>) => void) => () => void
}

/** The whole client API for a contract (what `window.airlock` is). */
export type ContractApi<C extends Record<string, NamespaceSpec>> = {
  [N in keyof C]: NamespaceApi<C[N]>
}

/** How a client reaches main: one invoke per call and one subscription per event channel. */
export type ContractTransport = {
  invoke(channel: string, input: unknown): Promise<Result<unknown>>
  subscribe(channel: string, listener: (payload: unknown) => void): () => void
}

/**
 * Builds the client API object from the contract, so preload and the web console expose exactly
 * the contract's methods and nothing generic.
 */
export function buildContractApi<C extends Record<string, NamespaceSpec>>(contract: C, transport: ContractTransport): ContractApi<C> {
  const api: Record<string, Record<string, unknown>> = {}
  for (const [namespace, spec] of Object.entries(contract)) {
    const methods: Record<string, unknown> = {}
    for (const call of Object.keys(spec.calls)) {
      const channel = channelOf(namespace, call)
      methods[call] = (input?: unknown) => transport.invoke(channel, input ?? {})
    }
    for (const event of Object.keys(spec.events)) {
      const channel = channelOf(namespace, event)
      methods[listenerName(event)] = (listener: (payload: unknown) => void) => transport.subscribe(channel, listener)
    }
    api[namespace] = Object.freeze(methods)
  }
  return Object.freeze(api) as ContractApi<C>
}
