import type { ProviderView } from '@shared/ipc'
import { create } from 'zustand'
import { airlock, unwrap } from '../../../lib/airlock-client'

/** The providers feature: registered providers with their probes, and the code-execution order. */
export type ProvidersState = {
  providers: ProviderView[]
  order: string[]
  status: 'idle' | 'probing' | 'ready' | 'error'
  error?: string
  /** The latest progress of an image pull or provisioning, while one runs. */
  imageProgress?: { image: string; stage: string; percent?: number }
  probe(): Promise<void>
}

/** The providers store; probing runs every provider's probe in main (a second or two). */
export const useProvidersStore = create<ProvidersState>((set) => ({
  providers: [],
  order: [],
  status: 'idle',
  async probe() {
    set({ status: 'probing', error: undefined })
    try {
      const { providers, codeExecutionOrder } = await unwrap(airlock.providers.list())
      set({ providers, order: codeExecutionOrder, status: 'ready' })
    } catch (error) {
      set({ status: 'error', error: (error as Error).message })
    }
  }
}))

airlock.providers.onImageProgress((progress) => useProvidersStore.setState({ imageProgress: progress.percent === 100 ? undefined : progress }))

airlock.settings.onChanged((view) => {
  if (view.key === 'code_execution.providers') void useProvidersStore.getState().probe()
})
