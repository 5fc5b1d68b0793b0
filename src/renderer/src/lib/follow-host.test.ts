import { describe, expect, it } from 'vitest'
import { create } from 'zustand'
import { markViewsStale } from './connection'
import { followHost, on, type HostEvent } from './follow-host'

// A pushed event of the contract as the client exposes it, fired by the test as main would push it.
function pushedEvent<T>() {
  const listeners = new Set<(payload: T) => void>()
  const subscribe: HostEvent<T> = (listener) => {
    listeners.add(listener)
    return () => listeners.delete(listener)
  }
  return { subscribe, push: (payload: T) => listeners.forEach((listener) => listener(payload)), count: () => listeners.size }
}

type Counter = { seen: string[]; reloads: number; receive(id: string): void; reload(): void }
const counterStore = () =>
  create<Counter>()((set, get) => ({
    seen: [],
    reloads: 0,
    receive: (id) => set({ seen: [...get().seen, id] }),
    reload: () => set({ reloads: get().reloads + 1 })
  }))

describe('followHost', () => {
  it('applies each pushed event to the state as it is then, reloads when the views go stale, and stops on dispose', () => {
    const changed = pushedEvent<{ id: string }>()
    const store = counterStore()
    const stop = followHost(store, { events: [on(changed.subscribe, (state: Counter, change) => state.receive(change.id))], reload: (state) => state.reload() })
    changed.push({ id: 'a' })
    changed.push({ id: 'b' })
    markViewsStale()
    expect(store.getState()).toMatchObject({ seen: ['a', 'b'], reloads: 1 })
    stop()
    changed.push({ id: 'c' })
    markViewsStale()
    expect(store.getState()).toMatchObject({ seen: ['a', 'b'], reloads: 1 })
    expect(changed.count()).toBe(0)
  })
})
