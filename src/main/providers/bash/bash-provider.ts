import { z } from 'zod'
import type { ExecutionResourceProvider, ProviderProbe, ResourceHandle, ResourceStatus } from '../../core'
import { realRoots } from '../process/workspace-paths'
import { acceptedCallerVariables } from './caller-env'
import { defaultAllowedPrefixes } from './command-allowlist'
import { HostCommandRunner } from './host-command-runner'
import { invalidConfig } from '../process/provider-helpers'
import { assertReachableBySandbox, sandboxIdentity } from '../../core'
import type { RunLedger } from '../process/run-ledger'

/** The `bash` provider has no config of its own (its bounds come from the policy); other providers' keys pass. */
const bashConfigSchema = z.looseObject({})

/** Isolation facts of the host runner: it is not a sandbox, and says so. */
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

  /** `runLedger` records each command's process group (detached from Airlock's) so a crash leaves none behind. */
  constructor(private readonly options: { runLedger?: RunLedger } = {}) {}

  async probe({ requirement, policy }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const config = bashConfigSchema.safeParse(requirement.config ?? {})
    if (!config.success) return invalidConfig('bash', config.error)
    if (!policy.workspaceRoots?.length) return { available: false, reason: 'the host runner needs policy.workspaceRoots (it only runs inside a workspace)' }
    return {
      available: true,
      capabilities: {
        isolation: hostIsolation,
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
    const runner = new HostCommandRunner(roots, policy, policy.allowedCommandPrefixes ?? defaultAllowedPrefixes, recording)
    return { resource: runner, meta: { isolation: hostIsolation } }
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
