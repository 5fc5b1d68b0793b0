import { airlockContract, buildContractApi, type AirlockApi } from '@shared/ipc'
import type { AppError, Result } from '@shared/result'
import { create } from 'zustand'
import { consoleSocketUrl, createWebSocketTransport } from './websocket-transport'

/**
 * Connection facts the shell shows (the desktop app is always connected): whether the socket is
 * up; `stale` when the console's token changed under this tab (its session cookie is refused);
 * and `epoch`, which moves when what the views show may be out of date — after a reconnect (events
 * sent meanwhile were lost) and when another process wrote the home (the CLI, a second console).
 * Stores follow it (`onStale`) and read what they hold again.
 */
export const useConnection = create<{ connected: boolean; stale: boolean; epoch: number }>(() => ({ connected: true, stale: false, epoch: 0 }))

const nextEpoch = () => useConnection.setState((state) => ({ epoch: state.epoch + 1 }))

/**
 * Tells a refused session from a server that is down: the page itself, asked with the cookie,
 * is 401 only when the token changed (Airlock restarted with `--rotate-token`, or a new home).
 */
async function checkStale(): Promise<void> {
  try {
    const response = await fetch(window.location.pathname, { method: 'HEAD', cache: 'no-store', credentials: 'same-origin' })
    useConnection.setState({ stale: response.status === 401 })
  } catch {
    // Not reachable at all: the server is down, which the banner already says.
  }
}

function onStatus(connected: boolean): void {
  const was = useConnection.getState().connected
  useConnection.setState(connected ? { connected, stale: false } : { connected })
  if (connected && !was) nextEpoch()
  // Each failed attempt asks again: the server may have come back with another token.
  if (!connected) void checkStale()
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

/**
 * The one client of the contract in the renderer: `window.airlock` in the desktop app, the same
 * API over a WebSocket in the web console. Stores call it; components never do.
 */
export const airlock: AirlockApi =
  window.airlock ??
  buildContractApi(
    airlockContract,
    createWebSocketTransport({
      url: consoleSocketUrl(window.location),
      contract: airlockContract,
      onStatus
    })
  )

// Another process wrote this home: the open view reads again (coalesced to one per second).
let changedElsewhere: ReturnType<typeof setTimeout> | undefined
airlock.system.onChangedElsewhere(() => {
  changedElsewhere ??= setTimeout(() => {
    changedElsewhere = undefined
    nextEpoch()
  }, 250)
})

/** A failed contract call, thrown by `unwrap` so stores can show its message. */
export class AirlockCallError extends Error {
  constructor(readonly error: AppError) {
    super(error.message)
  }
}

/** Returns a result's value or throws its error. */
export async function unwrap<T>(result: Promise<Result<T>>): Promise<T> {
  const settled = await result
  if (!settled.ok) throw new AirlockCallError(settled.error)
  return settled.value
}
