import { airlockContract, buildContractApi, type AirlockApi } from '@shared/ipc'
import type { AppError, Result } from '@shared/result'
import { create } from 'zustand'
import { consoleSocketUrl, createWebSocketTransport } from './websocket-transport'

/** Connection facts the shell shows (the desktop app is always connected). */
export const useConnection = create<{ connected: boolean }>(() => ({ connected: true }))

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
      onStatus: (connected) => useConnection.setState({ connected })
    })
  )

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
