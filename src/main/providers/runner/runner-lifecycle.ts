import type { ResourceHandle, ResourceStatus } from '../../core'
import type { LocalProgramRunner } from './local-program-runner'
import type { RunLedger } from './run-ledger'

/**
 * What every provider that hands out a `LocalProgramRunner` (bubblewrap, trusted_local) does the
 * same way: a handle is healthy while its runner takes runs, release closes the runner (ending its
 * runs and what its launcher keeps), and after a crash the run ledger names what was left running.
 */
export class RunnerLifecycle {
  constructor(
    private readonly providerId: string,
    private readonly ledger: RunLedger | undefined
  ) {}

  /** How a new runner records its runs (undefined without a ledger). */
  get recording(): { ledger: RunLedger; providerId: string } | undefined {
    return this.ledger ? { ledger: this.ledger, providerId: this.providerId } : undefined
  }

  async healthCheck(handle: ResourceHandle): Promise<ResourceStatus> {
    return (handle.resource as LocalProgramRunner).isUsable() ? 'ready' : 'unhealthy'
  }

  async release(handle: ResourceHandle): Promise<void> {
    await (handle.resource as LocalProgramRunner).close()
  }

  /** Ends what a crashed Airlock left running for this provider: launchers, process groups, per-run cgroups. */
  async recover(): Promise<string[]> {
    return this.ledger?.recover(this.providerId) ?? []
  }
}
