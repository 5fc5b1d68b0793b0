import { airlockContract, buildContractApi, type AirlockApi } from '@shared/ipc'
import { markViewsStale, useConnection } from './connection'
import { consoleSocketUrl, createWebSocketTransport } from './websocket-transport'

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
  if (connected && !was) markViewsStale()
  // Each failed attempt asks again: the server may have come back with another token.
  if (!connected) void checkStale()
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
    markViewsStale()
  }, 250)
})
