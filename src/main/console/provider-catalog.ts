import type { ProviderView } from '@shared/ipc'
import { isolationFactsSchema } from '@shared/resources'
import type { ExecutionResourceManager, ResourceRequirement } from '../core'

/** Kinds whose probe depends on per-agent config (an upstream server): not probed here. */
const probedPerAgent: Record<string, string> = {
  mcp: 'probed per upstream server when an agent attaches one',
  vector_store: "probed per agent: each agent's store is created under the home on its first vector_upsert"
}

/**
 * What the Providers view shows: every registered provider, probed for each kind it serves with
 * a representative requirement (a workspace root under this home; an in-memory database).
 * The probes are the providers' own observed facts; nothing here is assumed.
 */
export class ProviderCatalog {
  constructor(
    private readonly manager: ExecutionResourceManager,
    private readonly workspacesDir: string
  ) {}

  async describe(): Promise<ProviderView[]> {
    return Promise.all(
      this.manager.registeredProviders().map(async (provider) => ({
        providerId: provider.providerId,
        kinds: [...provider.supportedKinds],
        probes: await Promise.all(
          provider.supportedKinds.map(async (kind) => {
            if (probedPerAgent[kind]) return { kind, probed: false, available: false, reason: probedPerAgent[kind] }
            const requirement = this.representative(kind)
            try {
              const probe = await provider.probe({ requirement, policy: requirement.policy ?? {} })
              const capabilities = probe.capabilities ?? {}
              const isolation = isolationFactsSchema.safeParse(capabilities.isolation)
              return {
                kind,
                probed: true,
                available: probe.available,
                reason: probe.reason,
                isolation: isolation.success ? isolation.data : undefined,
                toolchains: capabilities.toolchains as ProviderView['probes'][number]['toolchains'],
                limits: capabilities.limits as Record<string, string> | undefined,
                diagnostics: probe.diagnostics
              }
            } catch (error) {
              return { kind, probed: true, available: false, reason: `probe failed: ${error instanceof Error ? error.message : String(error)}` }
            }
          })
        )
      }))
    )
  }

  private representative(kind: string): ResourceRequirement {
    const base = { kind, requirementId: `probe:${kind}`, scope: 'request' as const, resourceKey: kind }
    if (kind === 'sqlite') return { ...base, config: { database: ':memory:' }, policy: { readOnly: false, workspaceRoots: [this.workspacesDir] } }
    return { ...base, policy: { workspaceRoots: [this.workspacesDir] } }
  }
}
