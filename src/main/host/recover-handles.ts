import type { ExecutionResourceManager } from '../core'
import type { Store } from '../store'

/** What start-up recovery found and ended, per provider (also written to the audit log). */
export type RecoveryOutcome = { handles: number; providers: { providerId: string; ended: string[]; error?: string }[] }

/**
 * Start-up recovery (SPEC §10), through the provider contract: the handle records a crashed run
 * left in the store are handed to the providers, each ends what it knows was left (containers of
 * this home by label, recorded process groups and cgroups), the records are cleared, and the
 * recovery is written to the audit log. A provider that fails (no Docker engine) is reported and
 * does not stop the others. The host awaits this before it serves anything.
 */
export async function recoverLeftoverHandles(store: Store, resources: ExecutionResourceManager): Promise<RecoveryOutcome> {
  const leftovers = store.handles.list()
  const providers = await resources.recoverLeftovers(leftovers)
  for (const handle of leftovers) store.handles.remove(handle.handleId)
  if (leftovers.length > 0) {
    store.events.append('execution_resource.recovered', {
      handles: leftovers.map((h) => ({ handleId: h.handleId, kind: h.kind, providerId: h.providerId, scope: h.scope, ownerId: h.ownerId }))
    })
  }
  const ended = providers.filter((p) => p.ended.length > 0 || p.error)
  if (ended.length > 0) store.events.append('execution_resource.leftovers_ended', { providers: ended })
  return { handles: leftovers.length, providers }
}
