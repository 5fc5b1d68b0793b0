import type { AirlockApi } from '../shared/ipc'

declare global {
  interface Window {
    /** Present in the desktop app (preload); absent in the web console, which uses a WebSocket. */
    airlock?: AirlockApi
  }
}
