import type { ResourceHandleView } from '@shared/resources'
import { Boxes } from 'lucide-react'
import { useEffect, useMemo, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { EmptyState, ErrorBanner, Loading, ViewHeader } from '../../../ui'
import { sortHandles } from '../lib/handle-facts'
import '../resources.css'
import { useResourcesStore } from '../store/resources-store'
import { DialogReleaseConfirm } from './dialog-release-confirm'
import { PaneEventStream } from './pane-event-stream'
import { TableHandles } from './table-handles'

/** The Resources view: live handles (updated by pushed events), release with confirmation, and the event stream. */
export function ResourcesView() {
  const { handles, status, error, eventsStatus } = useResourcesStore(
    useShallow((state) => ({ handles: state.handles, status: state.handlesStatus, error: state.handlesError, eventsStatus: state.eventsStatus }))
  )
  const { loadHandles, loadEvents, release, dismissHandlesError } = useResourcesStore(
    useShallow((state) => ({
      loadHandles: state.loadHandles,
      loadEvents: state.loadEvents,
      release: state.release,
      dismissHandlesError: state.dismissHandlesError
    }))
  )
  const [confirming, setConfirming] = useState<ResourceHandleView>()
  // Handles are read fresh on each visit; the event stream is read once and then only pushed to.
  useEffect(() => void loadHandles(), [loadHandles])
  useEffect(() => {
    if (eventsStatus === 'idle') void loadEvents()
  }, [loadEvents, eventsStatus])
  const sorted = useMemo(() => sortHandles(handles), [handles])

  return (
    <div className="res-view">
      <ViewHeader
        title="Resources"
        subtitle="Live execution resources — sandboxes, containers, shells, database connections, browsers and MCP clients — with who holds them. Updated as they change."
      />
      {error && <ErrorBanner message={error} onDismiss={dismissHandlesError} testId="resources-error" />}
      {status === 'idle' || (status === 'loading' && handles.length === 0) ? (
        <Loading label="Reading the live resources…" />
      ) : status === 'error' && handles.length === 0 ? null : sorted.length === 0 ? (
        <EmptyState title="No live resources" testId="empty-resources" icon={<Boxes size={22} />}>
          <p>
            Each resource an agent's call holds appears here while it is live — its kind, scope and owner, provider, reference count, status and age — with a
            button to release it.
          </p>
          <p>Nothing is live right now. Connect an agent (Agents view) and let it run a command or code; its sandbox shows up here.</p>
        </EmptyState>
      ) : (
        <TableHandles handles={sorted} onRelease={setConfirming} />
      )}
      <PaneEventStream />
      <DialogReleaseConfirm
        handle={confirming}
        onCancel={() => setConfirming(undefined)}
        onConfirm={(handle) => {
          setConfirming(undefined)
          void release(handle.handleId)
        }}
      />
    </div>
  )
}
