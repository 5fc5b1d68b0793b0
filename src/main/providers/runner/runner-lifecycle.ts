import type { ResourceHandle, ResourceStatus } from '../../core'
import type { LocalProgramRunner } from './local-program-runner'
import type { RunLedger } from './run-ledger'

/**
 * What every provider that hands out a `LocalProgramRunner` (bubblewrap, trusted_local) does the
 * same way: a handle is healthy while its runner takes runs, release closes the runner (ending its
 * runs and what its launcher keeps), and after a crash the run ledger names what was left running.
 */
export abstract class LocalRunnerProvider {
  abstract readonly providerId: string

  constructor(private readonly runLedger: RunLedger | undefined) {}

  /** How a new runner records its runs (undefined without a ledger). */
  protected get recording(): { ledger: RunLedger; providerId: string } | undefined {
    return this.runLedger ? { ledger: this.runLedger, providerId: this.providerId } : undefined
  }

  async healthCheck(handle: ResourceHandle): Promise<ResourceStatus> {
    return (handle.resource as LocalProgramRunner).isUsable() ? 'ready' : 'unhealthy'
  }

  async release(handle: ResourceHandle): Promise<void> {
    await (handle.resource as LocalProgramRunner).close()
  }

  /**
   * After a crash, ends what the ledger says this provider left: launchers caught between spawn
   * and bwrap and per-run cgroups (sandboxes themselves die with Airlock), trusted_local's process
   * groups (nothing ties them to Airlock).
   */
  async recover(): Promise<string[]> {
    return this.runLedger?.recover(this.providerId) ?? []
  }
}
