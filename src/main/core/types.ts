import type { ProviderProbe, ResourcePolicy, ResourceRequirementInput, ResourceScope, ResourceStatus } from '@shared/resources'

export type {
  IsolationDemand,
  IsolationFacts,
  IsolationPolicy,
  NetworkMode,
  ProviderProbe,
  ResourceCandidate,
  ResourcePolicy,
  ResourceRequirementInput,
  ResourceScope,
  ResourceStatus
} from '@shared/resources'

/** A requirement after `declare`: validated, with its id, scope and resource key filled in. */
export type ResourceRequirement = ResourceRequirementInput & {
  requirementId: string
  scope: ResourceScope
  resourceKey: string
}

/**
 * A live resource held by the manager. `resource` (the sandbox, client, connection...) is a
 * non-enumerable property: JSON, structured clone and spreads never carry it.
 */
export type ResourceHandle = {
  handleId: string
  requirementId: string
  kind: string
  scope: ResourceScope
  ownerId?: string
  resourceKey: string
  providerId: string
  status: ResourceStatus
  refCount: number
  policy: ResourcePolicy
  meta: Record<string, unknown>
  actionCallId?: string
  createdAt: string
  readonly resource: unknown
}

/** What a provider's `ensure` returns. */
export type ProvidedResource = {
  resource: unknown
  handleId?: string
  status?: ResourceStatus
  meta?: Record<string, unknown>
}

/** The contract every provider implements (SPEC §3.7). */
export interface ExecutionResourceProvider {
  readonly providerId: string
  readonly supportedKinds: readonly string[]
  probe(input: { requirement: ResourceRequirement; policy: ResourcePolicy }): Promise<ProviderProbe>
  ensure(input: { requirement: ResourceRequirement; policy: ResourcePolicy; signal?: AbortSignal }): Promise<ProvidedResource>
  /** Exactly `'ready'` means the handle may be reused. */
  healthCheck(handle: ResourceHandle): Promise<ResourceStatus>
  /** May throw: the manager quarantines the handle and retries later. */
  release(handle: ResourceHandle): Promise<void>
  /**
   * Optional: ends what an earlier process on this home left running when it died (containers by
   * label, recorded process groups and cgroups), given the handle records the store still held for
   * this provider. Called once at start, before the host serves; returns what it ended.
   */
  recover?(input: { leftovers: ResourceHandleRecord[] }): Promise<string[]>
}

/** Read access to the application's settings (`access_control_policy.auto_allow`, `code_execution.providers`). */
export type SettingsReader = { get(key: string): unknown }

/** A handle as the store keeps it for crash recovery (no live resource). */
export type ResourceHandleRecord = Omit<ResourceHandle, 'resource'>

/**
 * The port through which the manager reports handle creation, changes and removal, so that after
 * a crash the next start can find what was left running. The application's store implements it.
 */
export interface HandleStore {
  save(handle: ResourceHandleRecord): void
  remove(handleId: string): void
}

/** One event of the bus: a type, a whitelisted payload, and when. */
export type ResourceEvent = { type: string; payload: Record<string, unknown>; at: string }
