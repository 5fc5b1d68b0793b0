import { onStale } from './connection'

/** One pushed event of the contract, as the client exposes it: `client.<namespace>.on<Event>(listener)` → unsubscribe. */
export type HostEvent<T> = (listener: (payload: T) => void) => () => void

/** A pushed event bound to what it does to a store's state (built with `on`). */
export type StoreEventHandler<S> = (state: () => S) => () => void

/** What keeps a feature store current: main's pushed events, and what to read again when the views may be stale. */
export type HostFeed<S> = {
  events: StoreEventHandler<S>[]
  /** Reads again what the store holds (after a reconnect, or another process's writes). */
  reload(state: S): void
}

/**
 * Pairs a pushed event with what it does to the store's state at the moment it arrives; `latest`
 * reads the state again for a handler that goes on after an await.
 */
export function on<S, T>(event: HostEvent<T>, apply: (state: S, payload: T, latest: () => S) => void): StoreEventHandler<S> {
  return (state) => event((payload) => apply(state(), payload, state))
}

/**
 * The one way a feature store follows main, which owns the data: applies each pushed event of
 * `feed` to the store and calls its `reload` whenever the views may be stale (a reconnect lost
 * events, another process wrote the home). Returns the disposer that stops following.
 */
export function followHost<S>(store: { getState(): S }, feed: HostFeed<S>): () => void {
  const stops = [...feed.events.map((handler) => handler(store.getState)), onStale(() => feed.reload(store.getState()))]
  return () => {
    for (const stop of stops) stop()
  }
}
