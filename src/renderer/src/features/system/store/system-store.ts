import type { SystemInfo } from '@shared/ipc'
import { create } from 'zustand'
import { airlock } from '../../../lib/airlock-client'

/** The system feature's state: facts about the running Airlock (`system.info`). */
export type SystemState = { info?: SystemInfo; error?: string; load(): Promise<void> }

/** The system store; the facts do not change while Airlock runs, so one answer serves every view. */
export const useSystemStore = create<SystemState>()((set) => ({
  async load() {
    const result = await airlock.system.info({})
    if (result.ok) set({ info: result.value, error: undefined })
    else set({ error: result.error.message })
  }
}))
