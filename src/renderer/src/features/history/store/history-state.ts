import type { HistoryDetail, HistoryLive, HistoryStatus, HistoryVerification, LiveLines } from '@shared/ipc/history'
import type { StateCreator } from 'zustand'
import type { HistoryFilters } from '../lib/filters'
import type { SeenValues } from '../lib/options'
import type { LoadedRows } from '../lib/rows'
import type { HistoryDeps } from './deps'

/** The loaded rows under the current filters, their count, and the live refresh. */
export type RowsSlice = LoadedRows & {
  filters: HistoryFilters
  /** `loading` until the first page under the current filters answered. */
  status: 'idle' | 'loading' | 'ready' | 'error'
  error?: string
  /** Bumped each time a first page under new filters arrives (the table scrolls back to the top). */
  resultId: number
  loadingMore: boolean
  moreError?: string
  /** How many calls match the filters (`history.count`), once it answered. */
  count?: number
  countError?: string
  /** Registered agents and providers, for the filter menus. */
  agentIds: string[]
  providerIds: string[]
  /** Agents, tools and providers seen in any page returned (the filter menus offer them whatever the current filters). */
  seen: SeenValues
  /** Loads the first page and the count under the current filters. */
  load(): Promise<void>
  /** Changes filters (and loads) unless they ask the same as now. */
  setFilters(patch: Partial<HistoryFilters>): Promise<void>
  /** Loads the page after the loaded rows, once at a time. */
  loadMore(): Promise<void>
  /** A call began or ended: its loaded row's status now, the first page and count (coalesced) soon. */
  receive(change: { id: string; status: HistoryStatus }): void
  /** Fetches the first page again and lays it over the loaded rows; refreshes the count. */
  refreshTop(): Promise<void>
  /** Re-reads the registered agents and providers for the filter menus. */
  refreshOptions(): Promise<void>
}

/** The call open in the drawer. */
export type DetailSlice = {
  selectedId?: string
  detail?: HistoryDetail
  detailStatus: 'idle' | 'loading' | 'ready' | 'error'
  detailError?: string
  select(id: string): Promise<void>
  closeDetail(): void
  /** Re-reads the open call (it changed). */
  refreshDetail(): Promise<void>
}

/** The running call open in the drawer, as it runs. */
export type LiveSlice = {
  live?: Omit<HistoryLive, 'policy' | 'approval'> & Partial<Pick<HistoryLive, 'policy' | 'approval'>> & { cancelling: boolean; cancelError?: string; error?: string }
  /** Starts following a running call (its output so far, then what is pushed). */
  watchLive(id: string): Promise<void>
  /** New lines pushed by main (`history.output`): kept when they belong to the call followed. */
  receiveOutput(lines: LiveLines): void
  /** The operator's Cancel of a running call. */
  cancelCall(id: string): Promise<void>
  /** Stops following (the drawer closed or the call ended). */
  stopLive(): void
}

/** The last check of the hash chain. */
export type ChainSlice = {
  verification?: HistoryVerification
  verifying: boolean
  verifyError?: string
  verify(): Promise<void>
}

/** An export of the filtered set as JSON Lines: its progress, and how it ended. */
export type ExportProgress =
  | { status: 'idle' }
  | { status: 'running'; rows: number; total?: number }
  | { status: 'done'; rows: number; fileName: string }
  | { status: 'cancelled'; rows: number }
  | { status: 'error'; rows: number; error: string }

/** Exporting the filtered set. */
export type ExportSlice = {
  exporting: ExportProgress
  startExport(): Promise<void>
  cancelExport(): void
  dismissExport(): void
}

/** The whole history feature state. */
export type HistoryState = RowsSlice & DetailSlice & LiveSlice & ChainSlice & ExportSlice

/** A slice of the history store, built with the store's dependencies. */
export type HistorySlice<T> = (deps: HistoryDeps) => StateCreator<HistoryState, [], [], T>
