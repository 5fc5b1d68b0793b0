import { z } from 'zod'
import { providerProbeSchema, resourceCandidateSchema } from '@shared/resources'
import { matchCapabilities } from './capability-match'
import { ExecutionResourceError } from './errors'
import type { ExecutionResourceProvider, ProviderProbe, ResourcePolicy, ResourceRequirement, SettingsReader } from './types'

/** What the manager recorded about one candidate's probe (shown in handle meta and errors). */
export type ProbeRecord = {
  providerId: string
  stage: 'probe' | 'reprobe'
  available: boolean
  eligible: boolean
  reason?: string
  capabilities?: Record<string, unknown>
  diagnostics?: string[]
}

/** A candidate that passed its probe: the provider, its merged config and what the probe reported. */
export type EligibleCandidate = {
  provider: ExecutionResourceProvider
  index: number
  /** The requirement with this candidate's config merged over its own (for this candidate only). */
  requirement: ResourceRequirement
  config: Record<string, unknown> | undefined
  capabilities: Record<string, unknown> | undefined
  /** Why it does not satisfy `preferredCapabilities`, when it does not. */
  preferenceMismatch?: string
}

/** Eligible candidates in the order to try (probed lazily), and every probe record so far. */
export type CandidatePlan = { eligible: AsyncIterable<EligibleCandidate>; probes: ProbeRecord[] }

/** Kinds whose provider order comes from the `code_execution.providers` setting (SPEC §3.3). */
const orderedKinds = new Set(['code_execution', 'bash'])
const candidateList = z.array(resourceCandidateSchema)

/**
 * Resolves the candidates of a requirement (explicit provider → `providerCandidates` → the
 * configured order for the kind → every provider of the kind in registration order) and yields the
 * eligible ones in order. Without preferences each candidate is probed only when the ones before it
 * did not work out; with `preferredCapabilities` all are probed and those satisfying them go first.
 */
export function planCandidates(input: {
  requirement: ResourceRequirement
  policy: ResourcePolicy
  providers: ReadonlyMap<string, ExecutionResourceProvider>
  providersOfKind: readonly ExecutionResourceProvider[]
  settings?: SettingsReader
}): CandidatePlan {
  const { requirement, policy } = input
  const candidates = candidatesOf(requirement, input.providersOfKind, input.settings)
  const known = candidates.filter((c) => input.providers.get(c.providerId)?.supportedKinds.includes(requirement.kind))
  if (known.length === 0) {
    throw new ExecutionResourceError(
      'provider_missing',
      `No provider is registered for kind ${JSON.stringify(requirement.kind)}` +
        (candidates.length > 0 ? ` among ${candidates.map((c) => c.providerId).join(', ')}` : '') +
        '.',
      { kind: requirement.kind, requirementId: requirement.requirementId, candidates: candidates.map((c) => c.providerId) }
    )
  }
  const wantPreferred = requirement.preferredCapabilities !== undefined
  const probes: ProbeRecord[] = []

  async function* probeInOrder(): AsyncGenerator<EligibleCandidate> {
    for (const [index, candidate] of candidates.entries()) {
      const provider = input.providers.get(candidate.providerId)
      if (!provider) {
        probes.push({ providerId: candidate.providerId, stage: 'probe', available: false, eligible: false, reason: 'no provider with this id is registered' })
        continue
      }
      if (!provider.supportedKinds.includes(requirement.kind)) {
        probes.push({
          providerId: candidate.providerId,
          stage: 'probe',
          available: false,
          eligible: false,
          reason: `does not support kind ${requirement.kind}`
        })
        continue
      }
      const config = candidate.config || requirement.config ? { ...requirement.config, ...candidate.config } : undefined
      const merged: ResourceRequirement = { ...requirement, config }
      const record = await probeCandidate(provider, merged, policy, 'probe')
      probes.push(record)
      if (!record.eligible) continue
      const preferenceMismatch = wantPreferred ? matchCapabilities(requirement.preferredCapabilities, record.capabilities) : undefined
      yield { provider, index, requirement: merged, config, capabilities: record.capabilities, preferenceMismatch }
    }
  }

  async function* preferredFirst(): AsyncGenerator<EligibleCandidate> {
    const all: EligibleCandidate[] = []
    for await (const candidate of probeInOrder()) all.push(candidate)
    // Stable: candidates that satisfy the preferences first, then the rest in their order.
    yield* all.filter((c) => c.preferenceMismatch === undefined)
    yield* all.filter((c) => c.preferenceMismatch !== undefined)
  }

  return { eligible: wantPreferred ? preferredFirst() : probeInOrder(), probes }
}

/** Probes one candidate and decides eligibility (available + every required capability). */
export async function probeCandidate(
  provider: ExecutionResourceProvider,
  requirement: ResourceRequirement,
  policy: ResourcePolicy,
  stage: ProbeRecord['stage']
): Promise<ProbeRecord> {
  let probe: ProviderProbe
  try {
    probe = providerProbeSchema.parse(await provider.probe({ requirement, policy }))
  } catch (error) {
    return {
      providerId: provider.providerId,
      stage,
      available: false,
      eligible: false,
      reason: `probe failed: ${error instanceof Error ? error.message : String(error)}`
    }
  }
  const base = { providerId: provider.providerId, stage, available: probe.available, capabilities: probe.capabilities, diagnostics: probe.diagnostics }
  if (!probe.available) return { ...base, eligible: false, reason: probe.reason ?? 'unavailable' }
  const mismatch = matchCapabilities(requirement.requiredCapabilities, probe.capabilities)
  if (mismatch) return { ...base, eligible: false, reason: `capabilities do not match: ${mismatch}` }
  // Labelled paths kept out of a call's sandbox: a provider that cannot hide them does not serve it (fail closed).
  if (policy.hiddenPaths?.length && probe.capabilities?.hidesPaths !== true) {
    return {
      ...base,
      eligible: false,
      reason: `cannot hide the workspace's labelled paths from this call (${policy.hiddenPaths.join(', ')}): labelled data stays out of what it cannot keep it from`
    }
  }
  return { ...base, eligible: true, reason: probe.reason }
}

/** The error when nothing qualified, with every probe record. */
export function noEligibleProvider(requirement: ResourceRequirement, probes: ProbeRecord[]): ExecutionResourceError {
  const reasons = probes.map((p) => `${p.providerId}${p.stage === 'reprobe' ? ' (re-probe)' : ''}: ${p.reason ?? 'not eligible'}`)
  return new ExecutionResourceError('provider_unavailable', `No provider can serve ${requirement.kind} here: ${reasons.join('; ')}.`, {
    kind: requirement.kind,
    requirementId: requirement.requirementId,
    probes
  })
}

function candidatesOf(
  requirement: ResourceRequirement,
  providersOfKind: readonly ExecutionResourceProvider[],
  settings: SettingsReader | undefined
): { providerId: string; config?: Record<string, unknown> }[] {
  const normalise = (list: z.infer<typeof candidateList>) => list.map((c) => (typeof c === 'string' ? { providerId: c } : c))
  if (requirement.providerId) return [{ providerId: requirement.providerId }]
  if (requirement.providerCandidates) return normalise(requirement.providerCandidates)
  if (orderedKinds.has(requirement.kind) && settings) {
    const configured = settings.get('code_execution.providers')
    if (configured !== undefined) {
      const parsed = candidateList.safeParse(configured)
      if (!parsed.success) {
        throw new ExecutionResourceError(
          'invalid_requirement',
          'The setting code_execution.providers is not a list of provider ids or {providerId, config}.',
          {}
        )
      }
      return normalise(parsed.data)
    }
  }
  return providersOfKind.map((p) => ({ providerId: p.providerId }))
}
