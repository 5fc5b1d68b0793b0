import type { ResourceHandleView } from '@shared/resources'
import type { StateCreator } from 'zustand'
import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import type { ResourcesClient } from './client'
import type { ResourcesState } from './resources-state'

/** The live handles from main, the operator's release and health checks. */
export type HandlesSlice = {
  handles: ResourceHandleView[]
  handlesStatus: 'idle' | 'loading' | 'ready' | 'error'
  handlesError?: string
  /** The last health verdict per handle, from the operator's "Check". */
  health: Record<string, string>
  /** Handles being released right now (their buttons wait). */
  releasing: Record<string, true>
  loadHandles(): Promise<void>
  refreshHandles(): Promise<void>
  release(handleId: string): Promise<boolean>
  checkHealth(handleId: string): Promise<void>
  dismissHandlesError(): void
}

/** The handles slice; `resources.changed` bursts coalesce into one refresh in flight plus one after it. */
export const createHandlesSlice =
  (client: ResourcesClient): StateCreator<ResourcesState, [], [], HandlesSlice> =>
  (set, get) => ({
    handles: [],
    handlesStatus: 'idle',
    health: {},
    releasing: {},
    async loadHandles() {
      set({ handlesStatus: get().handlesStatus === 'ready' ? 'ready' : 'loading', handlesError: undefined })
      const result = await client.resources.list({})
      if (result.ok) set({ handles: result.value, handlesStatus: 'ready' })
      else set({ handlesStatus: 'error', handlesError: result.error.message })
    },
    refreshHandles: coalescedRefresh(async () => {
      const result = await client.resources.list({})
      if (result.ok) set({ handles: result.value, handlesStatus: 'ready' })
    }),
    async release(handleId) {
      set({ releasing: { ...get().releasing, [handleId]: true }, handlesError: undefined })
      const result = await client.resources.release({ handleId })
      const { [handleId]: _done, ...releasing } = get().releasing
      set({ releasing })
      if (!result.ok) set({ handlesError: `Could not release ${handleId}: ${result.error.message}` })
      else if (!result.value.released) set({ handlesError: `${handleId} was already gone.` })
      await get().refreshHandles()
      return result.ok && result.value.released
    },
    async checkHealth(handleId) {
      const result = await client.resources.checkHealth({ handleId })
      set({ health: { ...get().health, [handleId]: result.ok ? result.value.status : result.error.message } })
    },
    dismissHandlesError() {
      set({ handlesError: undefined })
    }
  })
