import type { SystemInfo } from '@shared/ipc'
import { create } from 'zustand'
import type { SystemClient } from './client'

/** The system feature's state: facts about the running Airlock (`system.info`). */
export type SystemState = {
  info?: SystemInfo
  error?: string
  load(): Promise<void>
  /** Web console: a new console token; this tab opens the URL that carries it (every other console must). */
  rotateConsoleToken(): Promise<void>
  rotating?: boolean
  rotateError?: string
}

/**
 * Builds the system store over a client of the contract. It follows no event: the facts do not
 * change while Airlock runs, so one answer serves every view.
 */
export function createSystemStore(client: SystemClient) {
  return create<SystemState>()((set) => ({
    async load() {
      const result = await client.system.info({})
      if (result.ok) set({ info: result.value, error: undefined })
      else set({ error: result.error.message })
    },
    async rotateConsoleToken() {
      set({ rotating: true, rotateError: undefined })
      const result = await client.system.rotateConsoleToken({})
      if (!result.ok) return set({ rotating: false, rotateError: result.error.message })
      // The new URL sets this tab's session with the new token and leaves the address bar clean.
      window.location.assign(`${result.value.url}${window.location.hash}`)
    }
  }))
}
