import { z } from 'zod'
import {
  assertReachableBySandbox,
  sandboxIdentity,
  type ExecutionResourceProvider,
  type ProviderProbe,
  type ResourceHandle,
  type ResourceStatus
} from '../../core'
import { realRoots } from '../../core/sandbox/workspace-paths'
import { acceptedCallerVariables } from './caller-env'
import { defaultAllowedPrefixes } from './command-allowlist'
import { HostCommandRunner } from './host-command-runner'
import { invalidConfig } from '../provider-helpers'
import type { RunLedger } from '../runner/run-ledger'
import { ReadOnlySandbox, readOnlySandboxIsolation } from '../bubblewrap/read-only-sandbox'

/** The `bash` provider has no config of its own (its bounds come from the policy); other providers' keys pass. */
const bashConfigSchema = z.looseObject({})

/** Isolation facts of the host runner where bubblewrap does not work: it is then not a sandbox, and says so. */
export const hostIsolation = {
  processContained: false,
  hostFilesystemRestricted: false,
  privilegeEscalationBlocked: false,
  syscallsRestricted: false,
  mechanism: 'none',
  networkMode: 'full'
} as const

/**
 * `bash`: the host command runner for read-only inspection (SPEC §4): bound to the policy's
 * workspace roots, runs only commands whose prefix is on the allowlist (the policy's
 * `allowedCommandPrefixes`, else `pwd ls cat head tail wc find grep rg git status/diff/log/show`),
 * programs from the system directories, caller variables from a short presentation allowlist.
 */
export class BashProvider implements ExecutionResourceProvider {
  readonly providerId = 'bash'
  readonly supportedKinds = ['bash'] as const

  /**
   * `runLedger` records each command's process group (detached from Airlock's) so a crash leaves
   * none behind. `readOnlySandbox: false` runs commands straight on the host even where bubblewrap
   * works (tests of the checks alone); by default they also run in a read-only sandbox there.
   */
  constructor(private readonly options: { runLedger?: RunLedger; readOnlySandbox?: boolean } = {}) {}

  /** The read-only sandbox commands run in, or why there is none (then the probe says so). */
  private async sandbox(): Promise<ReadOnlySandbox | { reason: string }> {
    if (this.options.readOnlySandbox === false) return { reason: 'the read-only sandbox is turned off for this provider' }
    return ReadOnlySandbox.detect()
  }

  async probe({ requirement, policy }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const config = bashConfigSchema.safeParse(requirement.config ?? {})
    if (!config.success) return invalidConfig('bash', config.error)
    if (!policy.workspaceRoots?.length) return { available: false, reason: 'the host runner needs policy.workspaceRoots (it only runs inside a workspace)' }
    const sandbox = await this.sandbox()
    const sandboxed = sandbox instanceof ReadOnlySandbox
    return {
      available: true,
      diagnostics: [
        sandboxed
          ? 'commands run in a read-only bubblewrap sandbox that sees only the workspace'
          : `commands run on the host with path checks only (no read-only sandbox: ${sandbox.reason})`
      ],
      capabilities: {
        isolation: sandboxed ? readOnlySandboxIsolation : hostIsolation,
        allowedCommandPrefixes: policy.allowedCommandPrefixes ?? defaultAllowedPrefixes,
        callerEnv: acceptedCallerVariables,
        runsAsUid: sandboxIdentity().uid,
        shell: false
      }
    }
  }

  async ensure({ requirement, policy }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    bashConfigSchema.parse(requirement.config ?? {})
    const roots = realRoots(policy.workspaceRoots)
    for (const root of roots) assertReachableBySandbox(root)
    const recording = this.options.runLedger ? { ledger: this.options.runLedger, providerId: this.providerId } : undefined
    const sandbox = await this.sandbox()
    const sandboxed = sandbox instanceof ReadOnlySandbox
    const runner = new HostCommandRunner(roots, policy, policy.allowedCommandPrefixes ?? defaultAllowedPrefixes, recording, sandboxed ? sandbox : undefined)
    return { resource: runner, meta: { isolation: sandboxed ? readOnlySandboxIsolation : hostIsolation } }
  }

  async healthCheck(handle: ResourceHandle): Promise<ResourceStatus> {
    return (handle.resource as HostCommandRunner).isUsable() ? 'ready' : 'unhealthy'
  }

  /** Ends any command still running for this handle. */
  async release(handle: ResourceHandle): Promise<void> {
    ;(handle.resource as HostCommandRunner).close()
  }

  /** Ends the process groups of commands a crashed Airlock left running. */
  async recover(): Promise<string[]> {
    return this.options.runLedger?.recover(this.providerId) ?? []
  }
}
