import { createDockerClient, sweepLeftoverContainers } from '../providers'
import type { Store } from '../store'

/**
 * Start-up recovery (SPEC §10): handles still in the store were left by a run that ended without
 * releasing them. Their resources are gone with that process (sandboxes die with their parent, run
 * cgroups are swept per run) except containers, which are removed by label; the records are
 * cleared and the recovery is written to the audit log. An absent Docker engine is fine.
 */
export function recoverLeftoverHandles(store: Store, home: string): void {
  const leftovers = store.handles.list()
  for (const handle of leftovers) store.handles.remove(handle.handleId)
  if (leftovers.length > 0) {
    store.events.append('execution_resource.recovered', {
      handles: leftovers.map((h) => ({ handleId: h.handleId, kind: h.kind, providerId: h.providerId, scope: h.scope, ownerId: h.ownerId }))
    })
  }
  void sweepLeftoverContainers(createDockerClient(), home)
    .then((ids) => {
      if (ids.length > 0) store.events.append('execution_resource.containers_swept', { containerIds: ids })
    })
    .catch(() => undefined)
}
