import { closeSync } from 'node:fs'
import { z } from 'zod'
import {
  assertReachableBySandbox,
  assertWritableBySandbox,
  ExecutionResourceError,
  isExecutionsFolder,
  openDirectoryNoFollow,
  sandboxIdentity,
  type ExecutionResourceProvider,
  type ProviderProbe,
  type ResourceRequirement
} from '../../core'
import { LocalProgramRunner } from '../runner/local-program-runner'
import { systemPath } from '../runner/run-limits'
import { cached, findExecutable, invalidConfig } from '../provider-helpers'
import { languagesOf, observeToolchains } from '../runner/toolchains'
import { realRoots } from '../../core/sandbox/workspace-paths'
import { launchInRunCgroup } from '../runner/cgroup-launch'
import { detectCgroupSupport, type CgroupSupport } from '../runner/cgroup-limits'
import { ProviderError } from '../../core/provider-error'
import type { RunLedger } from '../runner/run-ledger'
import { LocalRunnerProvider } from '../runner/runner-lifecycle'

/** Limits a policy does not set (SPEC §6.1 agent defaults). */
const defaultLimits = { memoryMb: 1024, pids: 256 }

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
 * `trusted_local` (SPEC §3.4): the host's own toolchains with no isolation (the axes say so). It
 * still never runs as root (the sandbox uid when Airlock is root), passes only stdio, and holds
 * each run in a per-run cgroup where the host offers one, so nothing it starts outlives it. It runs only with
 * the operator's explicit authorisation (`config.allowUnsafeLocal === true`, per agent) and, for
 * code execution, only on a `snapshot` workspace grant. It can never satisfy `isolation: required`.
 */
export class TrustedLocalProvider extends LocalRunnerProvider implements ExecutionResourceProvider {
  readonly providerId = 'trusted_local'
  readonly supportedKinds = ['code_execution', 'bash'] as const
  private readonly toolchains = cached(60_000, () => observeToolchains())

  private cgroupSupport?: CgroupSupport

  /** `runLedger` records each run's process group (detached from Airlock's) so a crash leaves none behind. */
  constructor(private readonly options: { runLedger?: RunLedger } = {}) {
    super(options.runLedger)
  }

  private cgroups(): CgroupSupport {
    return (this.cgroupSupport ??= detectCgroupSupport())
  }

  async probe({ requirement }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const config = trustedLocalConfigSchema.safeParse(requirement.config ?? {})
    if (!config.success) return invalidConfig('trusted_local', config.error)
    const toolchains = await this.toolchains()
    const cgroups = this.cgroups()
    const capabilities = {
      isolation: trustedLocalIsolation,
      toolchains,
      languages: languagesOf(toolchains),
      authorised: config.data.allowUnsafeLocal === true,
      runsAsUid: sandboxIdentity().uid,
      limits: { pids: cgroups.pids ? 'cgroup' : 'not enforced', memory: cgroups.memory ? 'cgroup' : 'not enforced', cpuSeconds: 'not enforced' }
    }
    // In an ordered list an unauthorised trusted_local is skipped with its reason; asked for by
    // name, it stays available so that ensure fails with the precise code (trusted_local_not_allowed).
    const named = requirement.providerId === this.providerId
    const refusal = refusalOf(requirement, config.data)
    if (refusal && !named) return { available: false, reason: refusal, capabilities }
    return { available: true, capabilities, ...(refusal ? { reason: refusal } : {}) }
  }

  async ensure({ requirement, policy }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    const config = trustedLocalConfigSchema.parse(requirement.config ?? {})
    if (config.allowUnsafeLocal !== true) {
      throw new ExecutionResourceError(
        'trusted_local_not_allowed',
        'trusted_local runs code on the host without isolation; the operator must set allowUnsafeLocal for this agent.',
        {
          providerId: this.providerId
        }
      )
    }
    if (requirement.kind === 'code_execution' && requirement.workspaceAccess?.mode !== 'snapshot') {
      throw new ExecutionResourceError(
        'trusted_local_snapshot_required',
        'trusted_local only runs code on a snapshot of the workspace (workspaceAccess.mode "snapshot").',
        {
          providerId: this.providerId,
          mode: requirement.workspaceAccess?.mode ?? null
        }
      )
    }
    const roots = realRoots(policy.workspaceRoots)
    // Runs hold the sandbox uid: a workspace it cannot reach or write is refused now, with the fix, not at run time.
    for (const root of roots) {
      assertReachableBySandbox(root)
      const fd = openDirectoryNoFollow(root)
      try {
        if (!isExecutionsFolder(root)) assertWritableBySandbox(fd, root)
      } finally {
        closeSync(fd)
      }
    }
    const bash = findExecutable(['/usr/bin/bash', '/bin/bash'])
    if (!bash) throw new ProviderError('host_tool_missing', 'bash was not found in /usr/bin or /bin; trusted_local launches runs through it')
    const identity = sandboxIdentity()
    const limits = { ...defaultLimits, ...policy.limits }
    const cgroups = this.cgroups()
    const runner = new LocalProgramRunner(
      roots,
      policy,
      { PATH: systemPath, HOME: roots[0]!, LANG: 'C.UTF-8', TERM: 'dumb' },
      async ({ argv, cwd, env }) =>
        launchInRunCgroup(bash, argv, {
          cwd,
          env,
          identity: identity.dedicated ? identity : undefined,
          cgroups,
          limits: { pids: limits.pids, memoryBytes: Math.round(limits.memoryMb * 1024 * 1024) }
        }),
      this.recording
    )
    return { resource: runner, meta: { isolation: trustedLocalIsolation } }
  }
}

/** Why trusted_local would refuse this requirement (not authorised, or not a snapshot grant), if it would. */
function refusalOf(requirement: ResourceRequirement, config: { allowUnsafeLocal?: boolean }): string | undefined {
  if (config.allowUnsafeLocal !== true) return 'not authorised: set allowUnsafeLocal for this agent to use it'
  if (requirement.kind === 'code_execution' && requirement.workspaceAccess?.mode !== 'snapshot') return 'runs code only on a snapshot workspace grant'
  return undefined
}
