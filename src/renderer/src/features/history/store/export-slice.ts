import { historyPageLimit } from '@shared/ipc/history'
import type { AppError } from '@shared/result'
import type { StateCreator } from 'zustand'
import { appErrorOf, unwrap } from '../../../lib/call-result'
import { exportFileName, jsonlOf } from '../lib/export-jsonl'
import { listInputOf } from '../lib/filters'
import type { HistoryClient } from './client'
import type { HistoryState } from './history-state'

/** Where an export goes: the browser's download of a file, and the clock that names it (tests hand in their own). */
export type HistoryDownloads = {
  save(parts: BlobPart[], name: string): void
  now(): Date
}

/** An export of the filtered set as JSON Lines: its progress, and how it ended. */
export type ExportProgress =
  | { status: 'idle' }
  | { status: 'running'; rows: number; total?: number }
  | { status: 'done'; rows: number; fileName: string }
  | { status: 'cancelled'; rows: number }
  | { status: 'error'; rows: number; error: AppError }

/** Exporting the filtered set. */
export type ExportSlice = {
  exporting: ExportProgress
  startExport(): Promise<void>
  cancelExport(): void
  dismissExport(): void
}

/**
 * Export of the filtered set as JSON Lines: pages through `history.list` (500 at a time, the
 * contract's most) under the filters as they were when it began, then hands the file to the
 * browser. Cancelling drops what was gathered; nothing is saved.
 */
export const createExportSlice =
  (client: HistoryClient, { save, now }: HistoryDownloads): StateCreator<HistoryState, [], [], ExportSlice> =>
  (set, get) => {
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
            const page = await unwrap(client.history.list(listInputOf(filters, cursor, historyPageLimit)))
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
          if (mine === run) set({ exporting: { status: 'error', rows, error: appErrorOf(error) } })
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
