import { historyPageLimit } from '@shared/ipc/history'
import { exportFileName, jsonlOf } from '../lib/export-jsonl'
import { listInputOf } from '../lib/filters'
import { messageOf, valueOf } from './deps'
import type { ExportSlice, HistorySlice } from './history-state'

/**
 * Export of the filtered set as JSON Lines: pages through `history.list` (500 at a time, the
 * contract's most) under the filters as they were when it began, then hands the file to the
 * browser. Cancelling drops what was gathered; nothing is saved.
 */
export const exportSlice: HistorySlice<ExportSlice> = ({ api, save, now }) => (set, get) => {
  let run = 0
  return {
    exporting: { status: 'idle' },
    async startExport() {
      if (get().exporting.status === 'running') return
      const mine = ++run
      const filters = get().filters
      const total = get().count
      const parts: string[] = []
      let rows = 0
      let cursor: number | undefined
      set({ exporting: { status: 'running', rows, total } })
      try {
        do {
          const page = await valueOf(api.history.list(listInputOf(filters, cursor, historyPageLimit)))
          if (mine !== run) return
          parts.push(jsonlOf(page.rows))
          rows += page.rows.length
          cursor = page.nextCursor
          set({ exporting: { status: 'running', rows, total } })
        } while (cursor !== undefined)
        const fileName = exportFileName(filters, now())
        save(parts, fileName)
        set({ exporting: { status: 'done', rows, fileName } })
      } catch (error) {
        if (mine === run) set({ exporting: { status: 'error', rows, error: messageOf(error) } })
      }
    },
    cancelExport() {
      const current = get().exporting
      if (current.status !== 'running') return
      run++
      set({ exporting: { status: 'cancelled', rows: current.rows } })
    },
    dismissExport() {
      if (get().exporting.status !== 'running') set({ exporting: { status: 'idle' } })
    }
  }
}
