import { allowsUnsafeFallback, type EffectiveAgentProfile } from '@shared/agents'
import { protectedPathsWith } from '@shared/protected-paths'
import { codeLanguageSchema, type CodeLanguage } from '@shared/code-execution'
import type { EgressRecord } from '@shared/network'
import { ExecutionResourceError, type ActionContext, type ActionOutcome, type ResourceCandidate, type ResourceHandle, type ResourcePolicy } from '../../core'

// What `run_command` and `run_code` derive alike from an agent's profile (SPEC §6.1): the policy
// an execution runs under, the ordered provider candidates and how a handle is shown in results.

/**
 * The resource policy of an agent's executions, without workspace roots: its network and limits.
 * Network `proxy` reaches only Airlock's egress proxy (SPEC §6.5), which decides every connection.
 */
export function executionPolicy(profile: EffectiveAgentProfile): ResourcePolicy {
  return {
    networkMode: profile.network,
    timeoutSeconds: profile.limits.timeoutSeconds,
    maxOutputBytes: profile.limits.outputBytes,
    limits: { cpuSeconds: profile.limits.cpuSeconds, memoryMb: profile.limits.memoryMb, pids: profile.limits.pids },
    protectedPaths: protectedPathsWith(profile.protectedPaths)
  }
}

/**
 * The ordered providers of an execution (the profile's `providers`): `trusted_local` only with
 * `allowUnsafeLocal` (and then authorised in its config), also as the last resort of
 * `unsafeFallback`; the host `bash` runner only for shells, and only where the profile lists it.
 * `docker` gets `dockerConfig` (a shell session names the image language it runs in).
 */
export function orderedCandidates(
  profile: EffectiveAgentProfile,
  options: { kind: 'bash' | 'code_execution'; dockerConfig?: Record<string, unknown> }
): ResourceCandidate[] {
  const candidates: ResourceCandidate[] = []
  for (const id of profile.providers) {
    if (id === 'trusted_local') {
      if (profile.allowUnsafeLocal) candidates.push(trustedLocal)
    } else if (id === 'docker') candidates.push(options.dockerConfig ? { providerId: 'docker', config: options.dockerConfig } : 'docker')
    else if (id !== 'bash' || options.kind === 'bash') candidates.push(id)
  }
  if (unsafeFallback(profile) && !profile.providers.includes('trusted_local')) candidates.push(trustedLocal)
  return candidates
}

/** True when `trusted_local` may be the last resort: the profile asks for the fallback and the operator authorised it. */
export function unsafeFallback(profile: EffectiveAgentProfile): boolean {
  return allowsUnsafeFallback(profile)
}

const trustedLocal = { providerId: 'trusted_local', config: { allowUnsafeLocal: true } }

/**
 * Lineage of an execution (SPEC §6.3): a sandbox with the host network (`full`) may have reached
 * any endpoint, and is recorded so; through the egress proxy each endpoint is named (`recordEgress`).
 */
export function recordNetworkUse(context: Pick<ActionContext, 'agent' | 'touched'>): void {
  if (context.agent.profile.network === 'full') context.touched({ kind: 'tcp', endpoint: 'host network: any destination' })
}

/** Each connection a run made through the egress proxy, as lineage: endpoint, decision, address, rule, bytes. */
export function recordEgress(context: Pick<ActionContext, 'touched'>, records: readonly EgressRecord[] | undefined): void {
  for (const record of records ?? []) {
    context.touched({
      kind: 'tcp',
      endpoint: `${record.host}:${record.port}`,
      decision: record.decision,
      ...(record.address ? { address: record.address } : {}),
      ...(record.rule ? { rule: record.rule } : {}),
      ...(record.reason ? { reason: record.reason } : {}),
      bytesUp: record.bytesUp,
      bytesDown: record.bytesDown
    })
  }
}

/** What every execution call says about its profile: an unauthorised provider left out. */
export function executionDiagnostics(profile: EffectiveAgentProfile): string[] {
  const diagnostics: string[] = []
  if (profile.providers.includes('trusted_local') && !profile.allowUnsafeLocal)
    diagnostics.push('trusted_local is in the provider order but not authorised (allowUnsafeLocal is off): it was left out')
  if (profile.unsafeFallback && !profile.allowUnsafeLocal)
    diagnostics.push('unsafeFallback is set but trusted_local is not authorised (allowUnsafeLocal is off): there is no unsafe fallback')
  return diagnostics
}

/**
 * The image language a docker shell session runs in. There is no shell-only image: the session
 * uses the agent's Python image when Python is allowed (or no runtime list is set), else the
 * image of its first allowed runtime; its `bash` runs the commands.
 */
export function dockerShellLanguage(profile: EffectiveAgentProfile): CodeLanguage {
  if (profile.runtimes.length === 0 || profile.runtimes.includes('python')) return 'python'
  for (const runtime of profile.runtimes) {
    const language = codeLanguageSchema.safeParse(runtime)
    if (language.success) return language.data
  }
  return 'python'
}

/** A probe record as results show it: which provider, whether it qualified and why not. */
export type ProbeSummary = { providerId: string; eligible: boolean; reason?: string }

/** Shortens the manager's probe records (capabilities and toolchains left out) for results and history. */
export function summariseProbes(probes: unknown): ProbeSummary[] {
  if (!Array.isArray(probes)) return []
  return probes.map((probe: { providerId?: unknown; eligible?: unknown; reason?: unknown }) => ({
    providerId: String(probe.providerId),
    eligible: probe.eligible === true,
    ...(typeof probe.reason === 'string' ? { reason: probe.reason } : {})
  }))
}

/** `meta.provider` of a result: the provider, its handle, isolation facts and any recorded fallback. */
export function providerFacts(handle: ResourceHandle): Record<string, unknown> {
  const meta = handle.meta
  return {
    providerId: handle.providerId,
    handleId: handle.handleId,
    ...(meta.isolation ? { isolation: meta.isolation } : {}),
    preferenceFallback: meta.preferenceFallback === true,
    ...(meta.fallback ? { fallback: meta.fallback } : {}),
    ...(typeof meta.containerId === 'string' ? { containerId: meta.containerId } : {}),
    probes: summariseProbes(meta.providerProbes)
  }
}

/**
 * The outcome when no provider could serve the execution: `error`, the manager's code and message
 * (which names every probe), and the probes in `meta.provider`. Anything else is re-thrown for the
 * dispatcher (approval outcomes keep their own statuses there).
 */
export function selectionFailure(error: unknown, diagnostics: string[]): ActionOutcome {
  if (!(error instanceof ExecutionResourceError)) throw error
  const { code } = error
  if (code !== 'execution_resource.provider_unavailable' && code !== 'execution_resource.provider_missing') throw error
  const payload = error.data as { probes?: unknown; candidates?: unknown }
  return {
    status: 'error',
    error: { code, message: error.message },
    meta: { provider: { probes: summariseProbes(payload.probes), ...(payload.candidates ? { candidates: payload.candidates } : {}) } },
    diagnostics
  }
}
