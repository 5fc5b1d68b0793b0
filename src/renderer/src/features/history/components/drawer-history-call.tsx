import { CopyButton, Drawer, ErrorBanner, Loading, TextAgent } from '../../../ui'
import { PaneCheckpointChanges } from '../../checkpoints'
import { formatTimestamp } from '../lib/format'
import { useHistoryStore } from '../store/history-store'
import { LabelHistoryStatus } from './label-history-status'
import { PaneCallLive } from './pane-call-live'
import { PaneCallOutput } from './pane-call-output'
import { PaneCallPolicy } from './pane-call-policy'
import { PaneCallProvider } from './pane-call-provider'
import { PaneCallArtifacts, PaneCallChain, PaneCallLineage, PaneCallResult } from './pane-call-records'
import { PaneCallSummary } from './pane-call-summary'

/**
 * The open call in full, in a side drawer over the table: summary and input, stdout and stderr
 * (while it runs: its output as it arrives, and Cancel), the files it changed (diffs, revert),
 * policy and approval (with a link to it), provider and isolation, artifacts, lineage, result and
 * its place in the hash chain. Escape or the close button closes it.
 */
export function DrawerHistoryCall() {
  const selectedId = useHistoryStore((state) => state.selectedId)
  const detail = useHistoryStore((state) => state.detail)
  const detailStatus = useHistoryStore((state) => state.detailStatus)
  const detailError = useHistoryStore((state) => state.detailError?.message)
  const close = useHistoryStore((state) => state.closeDetail)
  const select = useHistoryStore((state) => state.select)
  const live = useHistoryStore((state) => state.live)
  const recorded = detail && detail.id === selectedId ? detail : undefined
  const running = recorded?.status === 'running' || recorded?.status === 'waiting_approval'
  // While it runs, what is decided so far comes from the dispatcher (it is recorded with the end).
  const shown =
    recorded && running && live?.id === recorded.id
      ? { ...recorded, policy: recorded.policy ?? live.policy ?? null, approval: recorded.approval ?? live.approval ?? null }
      : recorded
  return (
    <Drawer
      open={selectedId !== undefined}
      onOpenChange={(open) => {
        if (!open) close()
      }}
      testId="history-drawer"
      title={
        <>
          <code className="history-drawer-tool">{shown ? <TextAgent text={shown.tool} /> : 'Call'}</code>
          {shown && <LabelHistoryStatus status={shown.status} exitCode={shown.exitCode} pill testId="history-detail-status" />}
        </>
      }
      subtitle={shown ? `${shown.agentId ?? 'no agent'} · ${formatTimestamp(shown.startedAt)} · ${shown.id}` : selectedId}
      actions={selectedId && <CopyButton text={selectedId} label="Copy id" testId="history-drawer-copy-id" />}
    >
      {detailStatus === 'loading' && !shown && <Loading label="Reading the call…" />}
      {detailStatus === 'error' && (
        <ErrorBanner
          message={detailError ?? 'The call could not be read.'}
          onRetry={selectedId ? () => void select(selectedId) : undefined}
          testId="history-drawer-error"
        />
      )}
      {shown && (
        <div className="history-drawer-body">
          <PaneCallSummary detail={shown} />
          {running ? (
            <PaneCallLive detail={shown} />
          ) : (
            <>
              <PaneCallOutput name="stdout" stream={shown.stdout} />
              <PaneCallOutput name="stderr" stream={shown.stderr} />
            </>
          )}
          <PaneCheckpointChanges callId={shown.id} running={running} />
          <PaneCallPolicy detail={shown} />
          <PaneCallProvider detail={shown} />
          <PaneCallArtifacts artifacts={shown.artifacts} />
          <PaneCallLineage lineage={shown.lineage} />
          <PaneCallResult result={shown.result} />
          <PaneCallChain detail={shown} />
        </div>
      )}
    </Drawer>
  )
}
