import { CardEmptyState } from '../../../app/card-empty-state'
import { ViewHeader } from '../../../app/view-header'

/** The Providers view: code-execution providers and their isolation. */
export function ProvidersView() {
  return (
    <>
      <ViewHeader title="Providers" subtitle="The ordered code-execution providers, their isolation on this machine, and the doctor's verdicts." />
      <CardEmptyState title="No providers probed yet" testId="empty-providers">
        <p>Each code-execution provider (bubblewrap sandbox, Docker container, trusted local runner) appears here in the order it is tried, with what it really enforces on this machine and why it is unavailable when it is.</p><p>This build does not register providers yet, so there is nothing to probe. The order that will be used is in Settings → code_execution.providers.</p>
      </CardEmptyState>
    </>
  )
}
