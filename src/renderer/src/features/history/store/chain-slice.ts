import { messageOf, valueOf } from './deps'
import type { ChainSlice, HistorySlice } from './history-state'

/** The hash-chain check (`history.verify`): re-hashes every chained row and log file. */
export const chainSlice: HistorySlice<ChainSlice> = ({ api }) => (set) => ({
  verifying: false,
  async verify() {
    set({ verifying: true, verifyError: undefined })
    try {
      set({ verification: await valueOf(api.history.verify()) })
    } catch (error) {
      set({ verification: undefined, verifyError: messageOf(error) })
    } finally {
      set({ verifying: false })
    }
  }
})
