import { useEffect } from 'react'
import { CardEmptyState } from '../../../app/card-empty-state'
import { ViewHeader } from '../../../app/view-header'
import { useResourcesStore } from '../store/resources-store'
import { ListEvents } from './list-events'
import { TableHandles } from './table-handles'

/** The Resources view: live handles and their events. */
export function ResourcesView() {
  const { handles, events, status, error, load } = useResourcesStore()
  useEffect(() => {
    if (status === 'idle') void load()
  }, [status, load])
  return (
    <>
      <ViewHeader title="Resources" subtitle="Live execution resources: sandboxes, containers, connections, browsers and MCP clients." />
      {error && (
        <div className="banner banner-error" role="alert">
          {error}
        </div>
      )}
      {handles.length === 0 ? (
        <CardEmptyState title="No live resources" testId="empty-resources">
          <p>
            Each resource an action holds (its kind, scope, owner, provider, reference count, status and age) appears here while it is live,
            with a button to release it.
          </p>
          <p>No resource is live right now.</p>
        </CardEmptyState>
      ) : (
        <TableHandles handles={handles} />
      )}
      <h2 className="section-title">Event stream</h2>
      <ListEvents events={events} />
    </>
  )
}
