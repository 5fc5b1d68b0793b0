import type { ExecutionResourceProvider, ProviderProbe, ResourceHandle, ResourceStatus } from '../../src/main/core'

/**
 * A provider whose behaviour a test sets, for testing the manager's own logic (the provider is the
 * boundary there). Counts every call so tests can assert what was started and released.
 */
export class FakeProvider implements ExecutionResourceProvider {
  readonly supportedKinds: readonly string[]
  probes = 0
  ensures = 0
  releases = 0
  healthChecks = 0
  /** Requirements ensured, with the config each saw (to check candidate config merging). */
  ensured: { config?: Record<string, unknown> }[] = []
  probeResult: ProviderProbe | ((call: number) => ProviderProbe) = { available: true }
  ensureDelayMs = 0
  ensureError?: Error
  health: ResourceStatus | (() => ResourceStatus | Promise<ResourceStatus>) = 'ready'
  /** How many release calls fail before one succeeds. */
  releaseFailures = 0

  constructor(
    readonly providerId: string,
    kinds: string[] = ['code_execution']
  ) {
    this.supportedKinds = kinds
  }

  async probe(): Promise<ProviderProbe> {
    this.probes++
    return typeof this.probeResult === 'function' ? this.probeResult(this.probes) : this.probeResult
  }

  async ensure(input: { requirement: { config?: Record<string, unknown> } }) {
    this.ensures++
    this.ensured.push({ config: input.requirement.config })
    if (this.ensureDelayMs) await new Promise((resolve) => setTimeout(resolve, this.ensureDelayMs))
    if (this.ensureError) throw this.ensureError
    return { resource: { provider: this.providerId, serial: this.ensures, secretSocket: 'live-object' }, meta: { serial: this.ensures } }
  }

  async healthCheck(_handle: ResourceHandle): Promise<ResourceStatus> {
    this.healthChecks++
    return typeof this.health === 'function' ? this.health() : this.health
  }

  async release(): Promise<void> {
    this.releases++
    if (this.releaseFailures > 0) {
      this.releaseFailures--
      throw new Error(`${this.providerId} could not stop its resource`)
    }
  }
}

/** Isolation facts with every axis true (what a real sandbox reports). */
export const fullIsolation = {
  processContained: true,
  hostFilesystemRestricted: true,
  privilegeEscalationBlocked: true,
  syscallsRestricted: true,
  mechanism: 'fake-sandbox',
  networkMode: 'none'
} as const
