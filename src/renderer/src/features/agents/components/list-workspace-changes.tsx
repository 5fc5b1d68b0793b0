import { useShallow } from 'zustand/react/shallow'
import { visibleText } from '@shared/visible-text'
import { Badge, ErrorBanner, Loading, TextAgent, TimeAgo } from '../../../ui'
import { formatBytes } from '../lib/workspace-tree'
import { useAgentsStore } from '../store/agents-store'

/**
 * Files changed most recently anywhere in the workspace (newest first, from a bounded walk); each
 * opens in the viewer. Where a checkpoint recorded the change: how it changed and a link to the
 * call that made it (its diff and undo are in the History drawer); deleted files are listed too.
 */
export function ListWorkspaceChanges(props: { selected?: string; onOpen(path: string): void }) {
  const changes = useAgentsStore(useShallow((state) => state.changes))
  const agentId = useAgentsStore((state) => state.selectedId)
  const store = useAgentsStore((state) => state.checkpointStore)
  if (changes.status === 'error' && !changes.value) return <ErrorBanner message={changes.error!.message} />
  if (!changes.value) return <Loading label="Looking for recent changes…" />
  const { value } = changes
  return (
    <div className="ag-changes" data-testid="workspace-changes">
      {value.changes.length === 0 ? (
        <p className="ag-card-empty">No files yet. What the agent writes in its workspace appears here, newest first.</p>
      ) : (
        <ul>
          {value.changes.map((change) => (
            <li key={change.path} className="ag-change-item">
              <button
                type="button"
                className={`ag-change${change.path === props.selected ? ' ag-tree-selected' : ''}`}
                aria-current={change.path === props.selected ? 'true' : undefined}
                disabled={change.change === 'deleted'}
                onClick={() => props.onOpen(change.path)}
                data-testid={`workspace-change-${change.path}`}
              >
                <span className="ag-change-path" title={visibleText(change.path)}>
                  <TextAgent text={change.path} />
                </span>
                <span className="ag-change-meta">
                  {change.change && <Badge tone={change.change === 'deleted' ? 'bad' : change.change === 'added' ? 'ok' : 'neutral'}>{change.change}</Badge>}{' '}
                  <TimeAgo iso={change.modifiedAt} />
                  {change.change !== 'deleted' && <> · {formatBytes(change.bytes)}</>}
                </span>
              </button>
              {change.callId && agentId && (
                <a
                  className="ag-change-call"
                  href={`#/history?agent=${encodeURIComponent(agentId)}&id=${encodeURIComponent(change.callId)}`}
                  data-testid={`workspace-change-call-${change.path}`}
                  aria-label={`The call that changed ${visibleText(change.path)}: its diff and undo`}
                >
                  call
                </a>
              )}
            </li>
          ))}
        </ul>
      )}
      <p className="ag-changes-foot ag-muted">
        {value.complete
          ? `Looked at all ${value.scanned.toLocaleString()} entries.`
          : `Looked at the first ${value.scanned.toLocaleString()} entries (the walk is bounded); older changes may be missing.`}
      </p>
      {store && store.agentId === agentId && (
        <p className="ag-changes-foot ag-muted" data-testid="workspace-checkpoint-store">
          {store.enabled
            ? `Checkpoints keep ${formatBytes(store.storeBytes)} for this agent (every change can be seen and undone from its call).`
            : 'Checkpoints are off (setting checkpoints.enabled): changes cannot be undone.'}
        </p>
      )}
    </div>
  )
}
