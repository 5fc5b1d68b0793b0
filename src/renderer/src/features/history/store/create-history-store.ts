import { create } from 'zustand'
import { chainSlice } from './chain-slice'
import type { HistoryDeps } from './deps'
import { detailSlice } from './detail-slice'
import { exportSlice } from './export-slice'
import { liveSlice } from './live-slice'
import type { HistoryState } from './history-state'
import { rowsSlice } from './rows-slice'

/** Builds a history store from its slices over the given contract client (the app's, or a test's). */
export function createHistoryStore(deps: HistoryDeps) {
  return create<HistoryState>()((...a) => ({
    ...rowsSlice(deps)(...a),
    ...detailSlice(deps)(...a),
    ...liveSlice(deps)(...a),
    ...chainSlice(deps)(...a),
    ...exportSlice(deps)(...a)
  }))
}
