import type { WorkspaceChange, WorkspaceFile } from '@shared/ipc/workspace'
import type { StateCreator } from 'zustand'
import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import { ancestorsOf, type DirectoryState } from '../lib/workspace-tree'
import type { AgentsState } from './agents-state'
import type { AgentsClient } from './client'
import type { Loadable } from './detail-slice'

/** How many recently changed files the workspace pane lists. */
export const recentChangesLimit = 30

/** The selected agent's workspace browser: directories listed lazily, the open file and recent changes. */
export type WorkspaceSlice = {
  /** Listed directories by workspace-relative path ('' is the root). */
  directories: Record<string, DirectoryState>
  expanded: Record<string, boolean>
  file: Loadable<WorkspaceFile> & { path?: string }
  changes: Loadable<{ changes: WorkspaceChange[]; scanned: number; complete: boolean }>
  /** The agent's checkpoint store: whether checkpoints are on and how many bytes its checkpoints hold. */
  checkpointStore?: { enabled: boolean; storeBytes: number; agentId: string }
  /** Lists the root and the recent changes of the selected agent's workspace (once per selection). */
  openWorkspace(): void
  toggleDirectory(path: string): void
  /** Opens a file in the viewer and expands the folders that lead to it. */
  openFile(path: string | undefined): void
  /** Re-lists what is shown (the listed directories, the changes and the open file). */
  refreshWorkspace(): Promise<void>
  resetWorkspace(): void
}

/** Builds the workspace slice; answers for another agent than the selected one are dropped. */
export const createWorkspaceSlice =
  (client: AgentsClient): StateCreator<AgentsState, [], [], WorkspaceSlice> =>
  (set, get) => {
    const listDirectory = async (path: string) => {
      const agentId = get().selectedId
      if (!agentId) return
      if (!get().directories[path]) set({ directories: { ...get().directories, [path]: { status: 'loading' } } })
      const result = await client.workspace.list({ agentId, ...(path ? { path } : {}) })
      if (get().selectedId !== agentId) return
      const state: DirectoryState = result.ok
        ? { status: 'ready', entries: result.value.entries, truncated: result.value.truncated }
        : { status: 'error', error: result.error }
      set({ directories: { ...get().directories, [path]: state } })
    }
    const loadChanges = async () => {
      const agentId = get().selectedId
      if (!agentId) return
      if (!get().changes.value) set({ changes: { status: 'loading' } })
      const [result, store] = await Promise.all([
        client.workspace.recent({ agentId, limit: recentChangesLimit }),
        client.checkpoints.list({ agentId, limit: 1 })
      ])
      if (get().selectedId !== agentId) return
      if (store.ok) set({ checkpointStore: { enabled: store.value.enabled, storeBytes: store.value.storeBytes, agentId } })
      set({ changes: result.ok ? { status: 'ready', value: result.value } : { status: 'error', error: result.error, value: get().changes.value } })
    }
    const readFile = async (path: string, quiet: boolean) => {
      const agentId = get().selectedId
      if (!agentId) return
      if (!quiet) set({ file: { status: 'loading', path } })
      const result = await client.workspace.read({ agentId, path })
      if (get().selectedId !== agentId || get().file.path !== path) return
      set({ file: result.ok ? { status: 'ready', path, value: result.value } : { status: 'error', path, error: result.error } })
    }
    return {
      directories: {},
      expanded: {},
      file: { status: 'idle' },
      changes: { status: 'idle' },
      openWorkspace() {
        if (!get().selectedId || get().directories[''] !== undefined) return
        void listDirectory('')
        void loadChanges()
        for (const path of Object.keys(get().expanded)) if (get().expanded[path]) void listDirectory(path)
      },
      toggleDirectory(path) {
        const open = !get().expanded[path]
        set({ expanded: { ...get().expanded, [path]: open } })
        if (open && get().directories[path]?.status !== 'ready') void listDirectory(path)
      },
      openFile(path) {
        if (!path) {
          if (get().file.status !== 'idle') set({ file: { status: 'idle' } })
          return
        }
        if (get().file.path === path && get().file.status !== 'error') return
        const expanded = { ...get().expanded }
        for (const folder of ancestorsOf(path)) {
          if (!expanded[folder]) {
            expanded[folder] = true
            if (get().directories[''] !== undefined && get().directories[folder] === undefined) void listDirectory(folder)
          }
        }
        set({ expanded })
        void readFile(path, false)
      },
      refreshWorkspace: coalescedRefresh(async () => {
        if (!get().selectedId || get().directories[''] === undefined) return
        const listed = Object.keys(get().directories).filter((path) => path === '' || get().expanded[path])
        const open = get().file.path
        await Promise.all([...listed.map((path) => listDirectory(path)), loadChanges(), open ? readFile(open, true) : undefined])
      }),
      resetWorkspace() {
        set({ directories: {}, expanded: {}, file: { status: 'idle' }, changes: { status: 'idle' } })
      }
    }
  }
