import type { HistoryLive, LiveLines } from '@shared/ipc/history'
import type { AppError } from '@shared/result'
import type { StateCreator } from 'zustand'
import { appErrorOf, unwrap } from '../../../lib/call-result'
import type { HistoryClient } from './client'
import type { HistoryState } from './history-state'

/** The most lines the drawer keeps of a running call (older ones are counted as skipped). */
export const liveKeptLines = 2000

/** The running call open in the drawer, as it runs. */
export type LiveSlice = {
  live?: Omit<HistoryLive, 'policy' | 'approval'> &
    Partial<Pick<HistoryLive, 'policy' | 'approval'>> & { cancelling: boolean; cancelError?: AppError; error?: AppError }
  /** Starts following a running call (its output so far, then what is pushed). */
  watchLive(id: string): Promise<void>
  /** New lines pushed by main (`history.output`): kept when they belong to the call followed. */
  receiveOutput(lines: LiveLines): void
  /** The operator's Cancel of a running call. */
  cancelCall(id: string): Promise<void>
  /** Stops following (the drawer closed or the call ended). */
  stopLive(): void
}

/**
 * The running call open in the drawer, as it runs (`history.live`, then `history.output` pushes):
 * its latest lines, what is decided so far, and the operator's Cancel.
 */
export const createLiveSlice =
  (client: HistoryClient): StateCreator<HistoryState, [], [], LiveSlice> =>
  (set, get) => ({
    async watchLive(id) {
      if (get().live?.id === id) return
      set({ live: { id, running: true, lines: [], skipped: 0, cancelling: false } })
      try {
        const now = await unwrap(client.history.live({ id }))
        const current = get().live
        if (current?.id !== id) return
        // Lines pushed while the first answer travelled are kept; the answer fills in what came before them.
        const pushedFrom = current.lines[0]?.n ?? Number.POSITIVE_INFINITY
        const before = now.lines.filter((line) => line.n < pushedFrom)
        set({
          live: {
            ...current,
            running: now.running,
            lines: [...before, ...current.lines],
            skipped: now.skipped + current.skipped,
            policy: now.policy,
            approval: now.approval
          }
        })
      } catch (error) {
        if (get().live?.id === id) set({ live: { ...get().live!, error: appErrorOf(error) } })
      }
    },
    receiveOutput(pushed: LiveLines) {
      const current = get().live
      if (current?.id !== pushed.id) return
      const last = current.lines.at(-1)?.n ?? 0
      const fresh = pushed.lines.filter((line) => line.n > last)
      if (fresh.length === 0) return
      const lines = [...current.lines, ...fresh]
      const dropped = Math.max(0, lines.length - liveKeptLines)
      set({ live: { ...current, lines: dropped > 0 ? lines.slice(dropped) : lines, skipped: current.skipped + pushed.skipped + dropped } })
    },
    async cancelCall(id) {
      const current = get().live
      if (current?.id === id) set({ live: { ...current, cancelling: true, cancelError: undefined } })
      try {
        const { cancelled } = await unwrap(client.history.cancel({ id }))
        const after = get().live
        if (after?.id === id) set({ live: { ...after, cancelling: false, ...(cancelled ? {} : { running: false }) } })
      } catch (error) {
        const after = get().live
        if (after?.id === id) set({ live: { ...after, cancelling: false, cancelError: appErrorOf(error) } })
      }
    },
    stopLive() {
      set({ live: undefined })
    }
  })
