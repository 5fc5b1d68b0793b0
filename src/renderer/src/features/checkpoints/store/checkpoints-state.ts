import type { CheckpointView, FileDiffView } from '@shared/ipc'
import { create } from 'zustand'
import { on, type HostFeed } from '../../../lib/follow-host'
import type { CheckpointsClient } from './client'

/** A checkpoint's changes as the host described them (null: the call changed no file). */
export type CheckpointDetail = { checkpoint: CheckpointView; files: FileDiffView[]; more: number } | null

/** One checkpoint's changes as loaded. */
export type LoadedChanges = { status: 'loading' | 'ready' | 'error'; value?: CheckpointDetail; error?: string }

/** The operator's last undo: what it was, and how it went (the host's message names the files of a conflict). */
export type UndoState = { id: string; kind: 'revert' | 'restore'; status: 'working' | 'done' | 'error'; message?: string }

/** The checkpoints feature's state: changes per call and the operator's last undo. */
export type CheckpointsState = {
  /** Loaded changes by call id (or checkpoint id). */
  changes: Record<string, LoadedChanges>
  undo?: UndoState
  /** Loads (or reloads quietly) the changes of a call. */
  load(id: string): Promise<void>
  /** Reverts one call's changes, or restores the workspace to before it. */
  undoCall(id: string, kind: 'revert' | 'restore'): Promise<void>
  clearUndo(): void
  /** Reads again the calls shown without a checkpoint yet (still running); a recorded checkpoint does not change. */
  reloadPending(): void
}

/** Builds the checkpoints store over a client of the contract; main owns every fact in it. */
export function createCheckpointsStore(client: CheckpointsClient) {
  return create<CheckpointsState>()((set, get) => ({
    changes: {},
    async load(id) {
      if (!get().changes[id]?.value) set({ changes: { ...get().changes, [id]: { status: 'loading' } } })
      const result = await client.checkpoints.detail({ id })
      set({
        changes: {
          ...get().changes,
          [id]: result.ok ? { status: 'ready', value: result.value } : { status: 'error', error: result.error.message, value: get().changes[id]?.value }
        }
      })
    },
    async undoCall(id, kind) {
      set({ undo: { id, kind, status: 'working' } })
      const result = await (kind === 'revert' ? client.checkpoints.revert({ id }) : client.checkpoints.restore({ id }))
      if (!result.ok) {
        set({ undo: { id, kind, status: 'error', message: result.error.message } })
        return
      }
      const done =
        result.value.files === 0
          ? 'Nothing to change: the workspace already matches.'
          : `${kind === 'revert' ? 'Reverted' : 'Restored'} ${result.value.files} ${result.value.files === 1 ? 'entry' : 'entries'}. The agent is told on its next call; this is itself a checkpoint you can undo.`
      set({ undo: { id, kind, status: 'done', message: done } })
    },
    clearUndo() {
      set({ undo: undefined })
    },
    reloadPending() {
      const { changes, load } = get()
      for (const [id, loaded] of Object.entries(changes)) if (!loaded.value) void load(id)
    }
  }))
}

/**
 * How the checkpoints store follows main: when an agent's checkpoints changed (a call ended, an
 * undo, pruning), and after a reconnect or another process's writes, the calls still without a
 * checkpoint are read again.
 */
export function checkpointsFeed(client: CheckpointsClient): HostFeed<CheckpointsState> {
  return {
    events: [on(client.checkpoints.onChanged, (state) => state.reloadPending())],
    reload: (state) => state.reloadPending()
  }
}
