import { create } from 'zustand'

/**
 * Connection facts the shell shows (the desktop app is always connected): whether the socket is
 * up; `stale` when the console's token changed under this tab (its session cookie is refused);
 * and `epoch`, which moves when what the views show may be out of date — after a reconnect (events
 * sent meanwhile were lost) and when another process wrote the home (the CLI, a second console).
 * Stores follow it (`onStale`) and read what they hold again.
 */
export const useConnection = create<{ connected: boolean; stale: boolean; epoch: number }>(() => ({ connected: true, stale: false, epoch: 0 }))

/** Says that what the views show may be out of date (moves `epoch`): every store following `onStale` reads again. */
export function markViewsStale(): void {
  useConnection.setState((state) => ({ epoch: state.epoch + 1 }))
}

/**
 * Calls `listener` whenever what the views show may be out of date (a new `epoch`): each store
 * reads what it holds again, the way its own change events make it, so open forms and selections
 * stay as they are.
 */
export function onStale(listener: () => void): () => void {
  return useConnection.subscribe((now, before) => {
    if (now.epoch !== before.epoch) listener()
  })
}
