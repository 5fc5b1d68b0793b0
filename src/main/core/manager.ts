import { randomUUID } from 'node:crypto'
import { isolationFactsSchema, resourcePolicySchema } from '@shared/resources'
import { DeclaredRequirements, normaliseRequirement } from './declared-requirements'
import { ExecutionResourceError } from './errors'
import { PolicyApproval, type ApprovalDecision } from './policy-approval'
import { noEligibleProvider, planCandidates, probeCandidate, type EligibleCandidate, type ProbeRecord } from './provider-selection'
import { ProviderRegistry, type ProviderRecovery } from './provider-registry'
import { ResourceEventBus } from './resource-events'
import { KeyedLock } from './keyed-lock'
import { finalReuseKey } from './reuse-key'
import type { EnsureOptions, ExecutionResourceManagerOptions } from './manager-options'
import type {
  ResourceHandleRecord,
  ExecutionResourceProvider,
  HandleStore,
  ResourceHandle,
  ResourcePolicy,
  ResourceRequirement,
  ResourceRequirementInput,
  ResourceScope,
  ResourceStatus,
  SettingsReader
} from './types'

type Entry = { handle: ResourceHandle; provider: ExecutionResourceProvider; key: string }
type MutableHandle = { -readonly [K in keyof ResourceHandle]: ResourceHandle[K] }

/**
 * The execution-resource manager (SPEC §3.2): lazy declare; approval before reuse; ordered,
 * probed provider selection; reuse by hashed key with a health check; single-flight starts;
 * quarantine of handles whose release failed, retried by the next ensure of the same key.
 */
export class ExecutionResourceManager {
  /** Subscribe with `events.on(type | '*', listener)`; payloads are whitelisted. */
  readonly events = new ResourceEventBus()
  readonly approval: PolicyApproval
  private readonly settings?: SettingsReader
  private readonly handleStore?: HandleStore
  private readonly providers = new ProviderRegistry()
  private readonly requirements = new DeclaredRequirements()
  private readonly entries = new Map<string, Entry>()
  private readonly liveByKey = new Map<string, Entry>()
  private readonly quarantineByKey = new Map<string, Entry>()
  private readonly starting = new Map<string, Promise<Entry>>()
  private readonly locks = new KeyedLock()
  private readonly lastFailedStart = new Map<string, { seq: number; error: unknown }>()
  /** Ensures queued or running per final key: a failed start is remembered only while someone may still join it. */
  private readonly waiting = new Map<string, number>()
  private failedStarts = 0

  constructor(options: ExecutionResourceManagerOptions = {}) {
    this.approval = options.approval ?? new PolicyApproval()
    this.settings = options.settings
    this.handleStore = options.handleStore
  }

  /** Adds a provider under each of its kinds. The same object twice is a no-op; another with the same id is an error. */
  registerProvider(provider: ExecutionResourceProvider): this {
    this.providers.register(provider)
    return this
  }

  /** The registered providers, in registration order. */
  registeredProviders(): ExecutionResourceProvider[] {
    return this.providers.all()
  }

  /** Validates and records a requirement with its defaults; starts nothing. */
  declare(input: ResourceRequirementInput): ResourceRequirement {
    const requirement = normaliseRequirement(input)
    this.requirements.add(requirement, () => new Set([...this.entries.values()].map((entry) => entry.handle.requirementId)))
    this.events.emit('execution_resource.declared', { requirement })
    return requirement
  }

  /** Start-up recovery through the provider contract (see `ProviderRegistry.recover`). */
  recoverLeftovers(leftovers: readonly ResourceHandleRecord[]): Promise<ProviderRecovery[]> {
    return this.providers.recover(leftovers)
  }

  /** Resolves a requirement to a ready handle: policy, approval, selection, reuse or start. */
  async ensure(requirementOrId: ResourceRequirementInput | string, options: EnsureOptions = {}): Promise<ResourceHandle> {
    const declared = typeof requirementOrId === 'string' ? this.requirements.get(requirementOrId) : this.declare(requirementOrId)
    if (!declared) {
      throw new ExecutionResourceError('requirement_unknown', `No requirement ${JSON.stringify(requirementOrId)} was declared.`, {
        requirementId: requirementOrId
      })
    }
    const requirement: ResourceRequirement = { ...declared, scope: options.scope ?? declared.scope, ownerId: options.ownerId ?? declared.ownerId }
    const policy = await this.approve(requirement, this.accessPolicy(requirement), options.signal)
    const plan = planCandidates({
      requirement,
      policy,
      providers: this.providers.ids,
      providersOfKind: this.providers.ofKind(requirement.kind),
      settings: this.settings
    })
    for await (const candidate of plan.eligible) {
      const handle = await this.acquire(candidate, policy, plan.probes, options.signal)
      if (handle) return handle
    }
    throw noEligibleProvider(requirement, plan.probes)
  }

  /** Drops one reference; at zero the provider releases it. Unknown or gone handles are a no-op. */
  async release(handleOrId: ResourceHandle | string): Promise<void> {
    const entry = this.entries.get(typeof handleOrId === 'string' ? handleOrId : handleOrId.handleId)
    if (!entry) return
    await this.locks.run(entry.key, async () => {
      if (this.entries.get(entry.handle.handleId) !== entry) return
      if (entry.handle.status === 'failed') return this.releaseThroughProvider(entry)
      this.mutable(entry).refCount = Math.max(0, entry.handle.refCount - 1)
      if (entry.handle.refCount > 0) return this.persist(entry)
      await this.releaseNow(entry)
    })
  }

  /** Ends every handle of (scope, owner) whatever its refCount; reports all failures together. */
  releaseScope(scope: ResourceScope, ownerId: string): Promise<void> {
    return this.releaseWhere((h) => h.scope === scope && h.ownerId === ownerId, `${scope} ${ownerId}`)
  }

  /** Ends one handle whatever its refCount (the operator's release in the console). */
  forceRelease(handleId: string): Promise<void> {
    return this.releaseWhere((h) => h.handleId === handleId, `handle ${handleId}`)
  }

  /** Ends every handle (shutdown); reports all failures together. */
  releaseAll(): Promise<void> {
    return this.releaseWhere(() => true, 'this manager')
  }

  private async releaseWhere(matches: (handle: ResourceHandle) => boolean, label: string): Promise<void> {
    const matching = [...this.entries.values()].filter((e) => matches(e.handle))
    const failures: { handleId: string; providerId: string; error: string }[] = []
    for (const entry of matching) {
      try {
        await this.locks.run(entry.key, async () => {
          if (this.entries.get(entry.handle.handleId) !== entry) return
          if (entry.handle.status === 'failed') return this.releaseThroughProvider(entry)
          this.mutable(entry).refCount = 0
          await this.releaseNow(entry)
        })
      } catch (error) {
        failures.push({ handleId: entry.handle.handleId, providerId: entry.handle.providerId, error: error instanceof Error ? error.message : String(error) })
      }
    }
    if (failures.length > 0) {
      throw new ExecutionResourceError('release_failed', `${failures.length} of ${matching.length} resources of ${label} could not be released.`, { failures })
    }
  }

  /** A handle by handleId, else a declared requirement by requirementId. */
  inspect(id: string): ResourceHandle | ResourceRequirement | undefined {
    return this.entries.get(id)?.handle ?? this.requirements.get(id)
  }

  /** Live and quarantined handles, optionally filtered. */
  list(filter: { scope?: ResourceScope; ownerId?: string; status?: ResourceStatus } = {}): ResourceHandle[] {
    return [...this.entries.values()]
      .map((entry) => entry.handle)
      .filter(
        (h) =>
          (filter.scope === undefined || h.scope === filter.scope) &&
          (filter.ownerId === undefined || h.ownerId === filter.ownerId) &&
          (filter.status === undefined || h.status === filter.status)
      )
  }

  /** Asks the health of a handle now (for the console); does not change it. */
  async checkHealth(handleId: string): Promise<ResourceStatus | undefined> {
    const entry = this.entries.get(handleId)
    return entry ? this.health(entry) : undefined
  }

  private accessPolicy(requirement: ResourceRequirement): ResourcePolicy {
    const policy: ResourcePolicy = { ...requirement.policy }
    if (this.settings?.get('access_control_policy.auto_allow') === true) policy.autoAllow = true
    return policy
  }

  private async approve(requirement: ResourceRequirement, policy: ResourcePolicy, signal?: AbortSignal): Promise<ResourcePolicy> {
    const mode = policy.approvalMode ?? 'auto'
    if (requirement.approvalRequired !== true && mode !== 'always') return policy
    const reason = requirement.approvalRequired ? 'the requirement asks for approval' : 'approvalMode is always'
    const handler = policy.approvalHandler ?? this.approval.defaultHandlerName
    this.events.emit('execution_resource.approval_required', { requirement, reason, handler })
    this.events.emit('policy.approval.requested', { requirement, reason, handler })
    let decision: ApprovalDecision
    if (mode === 'never') decision = { status: 'denied', reason: 'approvalMode is never' }
    else if (policy.autoAllow) decision = { status: 'approved', reason: 'access_control_policy.auto_allow' }
    else {
      decision = await this.approval.resolve(
        {
          requirementId: requirement.requirementId,
          kind: requirement.kind,
          scope: requirement.scope,
          ownerId: requirement.ownerId,
          providerId: requirement.providerId,
          actionCallId: requirement.actionCallId,
          reason,
          summary: `${requirement.kind} resource ${requirement.resourceKey} for ${requirement.scope} ${requirement.ownerId ?? '(no owner)'}`,
          approvalKind: 'resource',
          ...(signal ? { signal } : {})
        },
        { handler: policy.approvalHandler }
      )
    }
    this.events.emit(`policy.approval.${decision.status}`, { requirement, reason: decision.reason, handler })
    const payload = { requirementId: requirement.requirementId, reason: decision.reason }
    if (decision.status === 'pending') throw new ExecutionResourceError('approval_required', `Approval is required and pending: ${decision.reason}.`, payload)
    if (decision.status === 'denied') throw new ExecutionResourceError('approval_denied', `Approval denied: ${decision.reason}.`, payload)
    return decision.policyOverride ? resourcePolicySchema.parse({ ...policy, ...decision.policyOverride }) : policy
  }

  /** Reuse or start on one candidate; undefined when its re-probe no longer qualifies it. */
  private async acquire(
    candidate: EligibleCandidate,
    policy: ResourcePolicy,
    probes: ProbeRecord[],
    signal?: AbortSignal
  ): Promise<ResourceHandle | undefined> {
    const key = finalReuseKey(candidate.requirement, candidate.provider.providerId, candidate.config)
    const joining = this.starting.get(key)
    if (joining) return this.retain(await joining)
    const failuresBefore = this.lastFailedStart.get(key)?.seq
    this.waiting.set(key, (this.waiting.get(key) ?? 0) + 1)
    try {
      return await this.locks.run(key, () => this.acquireLocked(key, candidate, policy, probes, failuresBefore, signal))
    } finally {
      const left = (this.waiting.get(key) ?? 1) - 1
      if (left > 0) this.waiting.set(key, left)
      else {
        this.waiting.delete(key)
        this.lastFailedStart.delete(key)
      }
    }
  }

  private async acquireLocked(
    key: string,
    candidate: EligibleCandidate,
    policy: ResourcePolicy,
    probes: ProbeRecord[],
    failuresBefore: number | undefined,
    signal?: AbortSignal
  ): Promise<ResourceHandle | undefined> {
    // A start of this key failed while we waited: we were concurrent with it, so we fail with it.
    const failed = this.lastFailedStart.get(key)
    if (failed && failed.seq !== failuresBefore) throw failed.error
    const quarantined = this.quarantineByKey.get(key)
    if (quarantined) await this.releaseThroughProvider(quarantined)
    const existing = this.liveByKey.get(key)
    if (existing) {
      if ((await this.health(existing)) === 'ready') return this.retain(existing)
      this.mutable(existing).status = 'unhealthy'
      this.events.emit('execution_resource.unhealthy', { handle: existing.handle })
      await this.releaseNow(existing)
    }
    const reprobe = await probeCandidate(candidate.provider, candidate.requirement, policy, 'reprobe')
    if (!reprobe.eligible) {
      probes.push(reprobe)
      return undefined
    }
    const start = this.start(key, candidate, policy, probes, signal)
    this.starting.set(key, start)
    try {
      const entry = await start
      this.lastFailedStart.delete(key)
      return entry.handle
    } catch (error) {
      this.lastFailedStart.set(key, { seq: ++this.failedStarts, error })
      throw error
    } finally {
      this.starting.delete(key)
    }
  }

  private async start(key: string, candidate: EligibleCandidate, policy: ResourcePolicy, probes: ProbeRecord[], signal?: AbortSignal): Promise<Entry> {
    const { requirement, provider } = candidate
    this.events.emit('execution_resource.ensuring', { requirement, providerId: provider.providerId, reuseKeyHash: key })
    let provided
    try {
      provided = await provider.ensure({ requirement, policy, signal })
    } catch (error) {
      this.events.emit('execution_resource.failed', { requirement, providerId: provider.providerId, reuseKeyHash: key, error })
      throw error
    }
    const isolation = isolationFactsSchema.safeParse(candidate.capabilities?.isolation)
    const handle = {
      handleId: provided.handleId ?? randomUUID(),
      requirementId: requirement.requirementId,
      kind: requirement.kind,
      scope: requirement.scope,
      ownerId: requirement.ownerId,
      resourceKey: requirement.resourceKey,
      providerId: provider.providerId,
      status: provided.status ?? 'ready',
      refCount: 1,
      policy,
      meta: {
        ...provided.meta,
        reuseKeyHash: key,
        providerProbes: probes.map((p) => ({ ...p })),
        selectedCandidate: { providerId: provider.providerId, index: candidate.index },
        ...(isolation.success ? { isolation: isolation.data } : {}),
        ...(candidate.preferenceMismatch ? { preferenceFallback: true, fallback: { reason: candidate.preferenceMismatch } } : {})
      },
      actionCallId: requirement.actionCallId,
      createdAt: new Date().toISOString()
    } as Omit<MutableHandle, 'resource'> as MutableHandle
    Object.defineProperty(handle, 'resource', { value: provided.resource, enumerable: false, writable: false })
    const entry: Entry = { handle, provider, key }
    this.entries.set(handle.handleId, entry)
    this.liveByKey.set(key, entry)
    this.persist(entry)
    this.events.emit('execution_resource.ready', { handle })
    return entry
  }

  private retain(entry: Entry): ResourceHandle {
    this.mutable(entry).refCount = entry.handle.refCount + 1
    this.persist(entry)
    return entry.handle
  }

  /** A provider's health verdict; a throw counts as unhealthy. */
  private async health(entry: Entry): Promise<ResourceStatus> {
    try {
      return await entry.provider.healthCheck(entry.handle)
    } catch {
      return 'unhealthy'
    }
  }

  /** Releases through the provider now; on failure the handle is quarantined and release_failed thrown. */
  private async releaseNow(entry: Entry): Promise<void> {
    const handle = this.mutable(entry)
    handle.status = 'releasing'
    this.persist(entry)
    this.events.emit('execution_resource.releasing', { handle })
    await this.releaseThroughProvider(entry)
  }

  /** Asks the provider to release; success forgets the handle, failure quarantines it (or keeps it quarantined). */
  private async releaseThroughProvider(entry: Entry): Promise<void> {
    try {
      await entry.provider.release(entry.handle)
    } catch (error) {
      this.quarantine(entry, error)
      throw this.releaseFailed(entry, error)
    }
    this.forget(entry)
  }

  private quarantine(entry: Entry, error: unknown): void {
    const handle = this.mutable(entry)
    handle.status = 'failed'
    handle.meta = { ...handle.meta, cleanupError: error instanceof Error ? error.message : String(error) }
    if (this.liveByKey.get(entry.key) === entry) this.liveByKey.delete(entry.key)
    this.quarantineByKey.set(entry.key, entry)
    this.persist(entry)
    this.events.emit('execution_resource.failed', { handle, error })
  }

  private forget(entry: Entry): void {
    this.entries.delete(entry.handle.handleId)
    if (this.liveByKey.get(entry.key) === entry) this.liveByKey.delete(entry.key)
    if (this.quarantineByKey.get(entry.key) === entry) this.quarantineByKey.delete(entry.key)
    this.mutable(entry).status = 'released'
    this.mutable(entry).refCount = 0
    this.handleStore?.remove(entry.handle.handleId)
    this.events.emit('execution_resource.released', { handle: entry.handle })
  }

  private releaseFailed(entry: Entry, error: unknown): ExecutionResourceError {
    const message = error instanceof Error ? error.message : String(error)
    return new ExecutionResourceError(
      'release_failed',
      `Releasing ${entry.handle.kind} handle ${entry.handle.handleId} (${entry.handle.providerId}) failed: ${message}`,
      {
        handleId: entry.handle.handleId,
        providerId: entry.handle.providerId,
        cleanupError: message
      },
      { cause: error }
    )
  }

  private persist(entry: Entry): void {
    if (!this.handleStore) return
    const { resource: _live, ...record } = entry.handle
    this.handleStore.save(record)
  }

  private mutable(entry: Entry): MutableHandle {
    return entry.handle as MutableHandle
  }
}
