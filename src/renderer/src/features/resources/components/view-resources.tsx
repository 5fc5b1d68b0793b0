import { CardEmptyState } from '../../../app/card-empty-state'
import { ViewHeader } from '../../../app/view-header'

/** The Resources view: live handles and their events. */
export function ResourcesView() {
  return (
    <>
      <ViewHeader title="Resources" subtitle="Live execution resources: sandboxes, containers, connections, browsers and MCP clients." />
      <CardEmptyState title="No live resources" testId="empty-resources">
        <p>Each resource an action holds (its kind, scope, owner, provider, reference count, status and age) appears here while it is live, with a button to release it, and the resource events stream below.</p><p>No resource is live right now.</p>
      </CardEmptyState>
    </>
  )
}
