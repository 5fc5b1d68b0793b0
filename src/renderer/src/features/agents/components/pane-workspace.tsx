import { RefreshCw } from 'lucide-react'
import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { IconButton, SegmentedControl } from '../../../ui'
import { useAgentsStore } from '../store/agents-store'
import { ListWorkspaceChanges } from './list-workspace-changes'
import { PaneWorkspaceFile } from './pane-workspace-file'
import { TreeWorkspace } from './tree-workspace'

/** The workspace tab: a read-only browser of the agent's workspace (tree or recent changes beside the open file). */
export function PaneWorkspace(props: { agentId: string; file?: string; onOpenFile(path: string | undefined): void }) {
  const { openWorkspace, openFile, refresh, changeCount } = useAgentsStore(
    useShallow((state) => ({
      openWorkspace: state.openWorkspace,
      openFile: state.openFile,
      refresh: state.refreshWorkspace,
      changeCount: state.changes.value?.changes.length
    }))
  )
  const [side, setSide] = useState<'tree' | 'recent'>('tree')
  useEffect(() => {
    openWorkspace()
  }, [openWorkspace, props.agentId])
  useEffect(() => {
    openFile(props.file)
  }, [openFile, props.file, props.agentId])

  return (
    <div className="ag-workspace">
      <div className="ag-ws-side">
        <div className="ag-ws-side-head">
          <SegmentedControl<'tree' | 'recent'>
            label="Workspace listing"
            options={[
              { value: 'tree', label: 'Files', testId: 'workspace-show-tree' },
              { value: 'recent', label: `Recent changes${changeCount ? ` (${changeCount})` : ''}`, testId: 'workspace-show-recent' }
            ]}
            value={side}
            onChange={setSide}
          />
          <IconButton label="Refresh the workspace" icon={<RefreshCw size={14} />} onClick={() => void refresh()} data-testid="workspace-refresh" />
        </div>
        {side === 'tree' ? (
          <TreeWorkspace selected={props.file} onOpen={props.onOpenFile} />
        ) : (
          <ListWorkspaceChanges selected={props.file} onOpen={props.onOpenFile} />
        )}
      </div>
      <PaneWorkspaceFile onClose={() => props.onOpenFile(undefined)} />
    </div>
  )
}
