import type { HistoryDetail } from '@shared/ipc/history'
import type { AppError } from '@shared/result'
import type { StateCreator } from 'zustand'
import { appErrorOf, unwrap } from '../../../lib/call-result'
import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import type { HistoryClient } from './client'
import type { HistoryState } from './history-state'

/** The call open in the drawer. */
export type DetailSlice = {
  selectedId?: string
  detail?: HistoryDetail
  detailStatus: 'idle' | 'loading' | 'ready' | 'error'
  detailError?: AppError
  select(id: string): Promise<void>
  closeDetail(): void
  /** Re-reads the open call (it changed). */
  refreshDetail(): Promise<void>
}

/** The call open in the drawer (`history.detail`), re-read when it changes. */
export const createDetailSlice =
  (client: HistoryClient): StateCreator<HistoryState, [], [], DetailSlice> =>
  (set, get) => ({
    detailStatus: 'idle',
    async select(id) {
      if (get().selectedId === id && get().detailStatus !== 'error') return
      set({ selectedId: id, detailStatus: 'loading', detailError: undefined, detail: get().detail?.id === id ? get().detail : undefined })
      try {
        const detail = await unwrap(client.history.detail({ id }))
        if (get().selectedId === id) set({ detail, detailStatus: 'ready' })
      } catch (error) {
        if (get().selectedId === id) set({ detailStatus: 'error', detailError: appErrorOf(error) })
      }
    },
    closeDetail() {
      set({ selectedId: undefined, detail: undefined, detailStatus: 'idle', detailError: undefined, live: undefined })
    },
    refreshDetail: coalescedRefresh(async () => {
      const id = get().selectedId
      if (!id) return
      const answer = await client.history.detail({ id })
      if (answer.ok && get().selectedId === id) set({ detail: answer.value, detailStatus: 'ready' })
    })
  })
