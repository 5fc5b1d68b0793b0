import { z } from 'zod'
import { ExecutionResourceError, type ExecutionResourceProvider, type ProviderProbe, type ResourceHandle, type ResourceStatus } from '../../core'
import { LocalProgramRunner } from '../process/local-program-runner'
import { systemPath } from '../process/run-limits'
import { cached } from '../process/provider-helpers'
import { languagesOf, observeToolchains } from '../process/toolchains'
import { realRoots } from '../process/workspace-paths'
import { invalidConfig } from '../process/provider-helpers'

/** trusted_local reads only its authorisation flag; other providers' keys in a shared config pass. */
const trustedLocalConfigSchema = z.looseObject({ allowUnsafeLocal: z.boolean().optional() })

/** trusted_local enforces nothing, and its probe says so: all four axes false. */
export const trustedLocalIsolation = {
  processContained: false,
  hostFilesystemRestricted: false,
  privilegeEscalationBlocked: false,
  syscallsRestricted: false,
  mechanism: 'trusted_local',
  networkMode: 'full'
} as const

/**
 * `trusted_local` (SPEC §3.4): the host's own toolchains with no isolation. It runs only with
 * the operator's explicit authorisation (`config.allowUnsafeLocal === true`, per agent) and, for
 * code execution, only on a `snapshot` workspace grant. It can never satisfy `isolation: required`.
 */
export class TrustedLocalProvider implements ExecutionResourceProvider {
  readonly providerId = 'trusted_local'
  readonly supportedKinds = ['code_execution', 'bash'] as const
  private readonly toolchains = cached(60_000, () => observeToolchains())

  async probe({ requirement }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const config = trustedLocalConfigSchema.safeParse(requirement.config ?? {})
    if (!config.success) return invalidConfig('trusted_local', config.error)
    const toolchains = await this.toolchains()
    return {
      available: true,
      capabilities: { isolation: trustedLocalIsolation, toolchains, languages: languagesOf(toolchains), authorised: config.data.allowUnsafeLocal === true },
      ...(config.data.allowUnsafeLocal === true ? {} : { reason: 'not authorised: set allowUnsafeLocal for this agent to use it' })
    }
  }

  async ensure({ requirement, policy }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    const config = trustedLocalConfigSchema.parse(requirement.config ?? {})
    if (config.allowUnsafeLocal !== true) {
      throw new ExecutionResourceError('trusted_local_not_allowed', 'trusted_local runs code on the host without isolation; the operator must set allowUnsafeLocal for this agent.', {
        providerId: this.providerId
      })
    }
    if (requirement.kind === 'code_execution' && requirement.workspaceAccess?.mode !== 'snapshot') {
      throw new ExecutionResourceError('trusted_local_snapshot_required', 'trusted_local only runs code on a snapshot of the workspace (workspaceAccess.mode "snapshot").', {
        providerId: this.providerId,
        mode: requirement.workspaceAccess?.mode ?? null
      })
    }
    const roots = realRoots(policy.workspaceRoots)
    const runner = new LocalProgramRunner(roots, policy, { PATH: systemPath, HOME: roots[0]!, LANG: 'C.UTF-8', TERM: 'dumb' }, async ({ argv }) => ({ argv }))
    return { resource: runner, meta: { isolation: trustedLocalIsolation } }
  }

  async healthCheck(handle: ResourceHandle): Promise<ResourceStatus> {
    return (handle.resource as LocalProgramRunner).isUsable() ? 'ready' : 'unhealthy'
  }

  async release(handle: ResourceHandle): Promise<void> {
    ;(handle.resource as LocalProgramRunner).close()
  }
}
