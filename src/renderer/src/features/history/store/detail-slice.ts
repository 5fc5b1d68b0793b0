import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import { messageOf, valueOf } from './deps'
import type { DetailSlice, HistorySlice } from './history-state'

/** The call open in the drawer (`history.detail`), re-read when it changes. */
export const detailSlice: HistorySlice<DetailSlice> = ({ api }) => (set, get) => ({
  detailStatus: 'idle',
  async select(id) {
    if (get().selectedId === id && get().detailStatus !== 'error') return
    set({ selectedId: id, detailStatus: 'loading', detailError: undefined, detail: get().detail?.id === id ? get().detail : undefined })
    try {
      const detail = await valueOf(api.history.detail({ id }))
      if (get().selectedId === id) set({ detail, detailStatus: 'ready' })
    } catch (error) {
      if (get().selectedId === id) set({ detailStatus: 'error', detailError: messageOf(error) })
    }
  },
  closeDetail() {
    set({ selectedId: undefined, detail: undefined, detailStatus: 'idle', detailError: undefined, live: undefined })
  },
  refreshDetail: coalescedRefresh(async () => {
    const id = get().selectedId
    if (!id) return
    const answer = await api.history.detail({ id })
    if (answer.ok && get().selectedId === id) set({ detail: answer.value, detailStatus: 'ready' })
  })
})
