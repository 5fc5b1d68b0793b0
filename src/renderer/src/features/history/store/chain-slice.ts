import type { HistoryVerification } from '@shared/ipc/history'
import type { AppError } from '@shared/result'
import type { StateCreator } from 'zustand'
import { appErrorOf, unwrap } from '../../../lib/call-result'
import type { HistoryClient } from './client'
import type { HistoryState } from './history-state'

/** The last check of the hash chain. */
export type ChainSlice = {
  verification?: HistoryVerification
  verifying: boolean
  verifyError?: AppError
  verify(): Promise<void>
}

/** The hash-chain check (`history.verify`): re-hashes every chained row and log file. */
export const createChainSlice =
  (client: HistoryClient): StateCreator<HistoryState, [], [], ChainSlice> =>
  (set) => ({
    verifying: false,
    async verify() {
      set({ verifying: true, verifyError: undefined })
      try {
        set({ verification: await unwrap(client.history.verify()) })
      } catch (error) {
        set({ verification: undefined, verifyError: appErrorOf(error) })
      } finally {
        set({ verifying: false })
      }
    }
  })
