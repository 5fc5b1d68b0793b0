import type { CheckpointView, FileDiffView } from '@shared/ipc'
import { create } from 'zustand'
import { airlock, onStale } from '../../../lib/airlock-client'

/** A checkpoint's changes as the host described them (null: the call changed no file). */
export type CheckpointDetail = { checkpoint: CheckpointView; files: FileDiffView[]; more: number } | null

/** One checkpoint's changes as loaded. */
export type LoadedChanges = { status: 'loading' | 'ready' | 'error'; value?: CheckpointDetail; error?: string }

/** The operator's last undo: what it was, and how it went (the host's message names the files of a conflict). */
export type UndoState = { id: string; kind: 'revert' | 'restore'; status: 'working' | 'done' | 'error'; message?: string }

type CheckpointsState = {
  /** Loaded changes by call id (or checkpoint id). */
  changes: Record<string, LoadedChanges>
  undo?: UndoState
  /** Loads (or reloads quietly) the changes of a call. */
  load(id: string): Promise<void>
  /** Reverts one call's changes, or restores the workspace to before it. */
  undoCall(id: string, kind: 'revert' | 'restore'): Promise<void>
  clearUndo(): void
}

/** Changes per call and the operator's undo; main owns every fact and says when an agent's checkpoints changed. */
export const useCheckpointsStore = create<CheckpointsState>()((set, get) => ({
  changes: {},
  async load(id) {
    if (!get().changes[id]?.value) set({ changes: { ...get().changes, [id]: { status: 'loading' } } })
    const result = await airlock.checkpoints.detail({ id })
    set({ changes: { ...get().changes, [id]: result.ok ? { status: 'ready', value: result.value } : { status: 'error', error: result.error.message, value: get().changes[id]?.value } } })
  },
  async undoCall(id, kind) {
    set({ undo: { id, kind, status: 'working' } })
    const result = await (kind === 'revert' ? airlock.checkpoints.revert({ id }) : airlock.checkpoints.restore({ id }))
    if (!result.ok) {
      set({ undo: { id, kind, status: 'error', message: result.error.message } })
      return
    }
    const done = result.value.files === 0 ? 'Nothing to change: the workspace already matches.' : `${kind === 'revert' ? 'Reverted' : 'Restored'} ${result.value.files} ${result.value.files === 1 ? 'entry' : 'entries'}. The agent is told on its next call; this is itself a checkpoint you can undo.`
    set({ undo: { id, kind, status: 'done', message: done } })
  },
  clearUndo() {
    set({ undo: undefined })
  }
}))

// An agent's checkpoints changed (a call ended, an undo, pruning): calls shown without a checkpoint
// yet (still running) are read again; a recorded checkpoint does not change.
const reload = () => {
  const { changes, load } = useCheckpointsStore.getState()
  for (const [id, loaded] of Object.entries(changes)) if (!loaded.value) void load(id)
}
airlock.checkpoints.onChanged(reload)
onStale(reload)
