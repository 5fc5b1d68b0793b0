import { create } from 'zustand'
import { on, type HostFeed } from '../../../lib/follow-host'
import { saveFile } from '../lib/download'
import { createChainSlice, type ChainSlice } from './chain-slice'
import type { HistoryClient } from './client'
import { createDetailSlice, type DetailSlice } from './detail-slice'
import { createExportSlice, type ExportSlice, type HistoryDownloads } from './export-slice'
import { createLiveSlice, type LiveSlice } from './live-slice'
import { createRowsSlice, type RowsSlice } from './rows-slice'

/** The history feature's state: rows and filters, the open call and its live output, the chain check and the export. */
export type HistoryState = RowsSlice & DetailSlice & LiveSlice & ChainSlice & ExportSlice

/** The browser's download and the wall clock: where the console's exports go. */
const browserDownloads: HistoryDownloads = { save: saveFile, now: () => new Date() }

/** Builds the history store from its slices over a client of the contract (exports go to `downloads`). */
export function createHistoryStore(client: HistoryClient, downloads: HistoryDownloads = browserDownloads) {
  return create<HistoryState>()((...a) => ({
    ...createRowsSlice(client)(...a),
    ...createDetailSlice(client)(...a),
    ...createLiveSlice(client)(...a),
    ...createChainSlice(client)(...a),
    ...createExportSlice(client, downloads)(...a)
  }))
}

/**
 * How the history store follows main: a call's status and output as pushed, the filter menus when
 * agents change, and, once the view has loaded, the first page and the menus read again after a
 * reconnect or another process's writes.
 */
export function historyFeed(client: HistoryClient): HostFeed<HistoryState> {
  return {
    events: [
      on(client.history.onChanged, (state, change) => state.receive(change)),
      on(client.history.onOutput, (state, lines) => state.receiveOutput(lines)),
      on(client.agents.onChanged, (state) => {
        if (state.status !== 'idle') void state.refreshOptions()
      })
    ],
    reload(state) {
      if (state.status === 'idle') return
      void state.refreshTop()
      void state.refreshOptions()
    }
  }
}
