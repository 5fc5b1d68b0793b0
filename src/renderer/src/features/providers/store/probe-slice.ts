import type { ProviderView } from '@shared/ipc'
import type { StateCreator } from 'zustand'
import type { ProvidersClient } from './client'
import type { ProvidersState } from './providers-state'

/** Every registered provider with what its probe found on this machine. */
export type ProbeSlice = {
  providers: ProviderView[]
  probeStatus: 'idle' | 'probing' | 'ready' | 'error'
  probeError?: string
  /** When the last probe answered (ISO), so the view can say how fresh the facts are. */
  probedAt?: string
  probe(): Promise<void>
}

/** The probe slice: `providers.list` runs every provider's probe in main (a second or two). */
export const createProbeSlice =
  (client: ProvidersClient): StateCreator<ProvidersState, [], [], ProbeSlice> =>
  (set) => ({
    providers: [],
    probeStatus: 'idle',
    async probe() {
      set({ probeStatus: 'probing', probeError: undefined })
      const result = await client.providers.list({})
      if (result.ok) set({ providers: result.value.providers, probeStatus: 'ready', probedAt: new Date().toISOString() })
      else set({ probeStatus: 'error', probeError: result.error.message })
    }
  })
