import { create } from 'zustand'
import type { SystemInfo } from '@shared/ipc'
import { airlock, unwrap } from '../../../lib/airlock-client'

/** The system feature's state. */
export const useSystemStore = create<{ info?: SystemInfo; error?: string; load(): Promise<void> }>((set) => ({
  async load() {
    try {
      set({ info: await unwrap(airlock.system.info()), error: undefined })
    } catch (error) {
      set({ error: (error as Error).message })
    }
  }
}))
