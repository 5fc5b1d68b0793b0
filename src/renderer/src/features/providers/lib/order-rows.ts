import type { ProviderView } from '@shared/ipc'
import type { IsolationFacts } from '@shared/resources'
import type { Candidate } from './candidates'
import { claimedAxisCount, probeOfKind, probeVerdict, type KindProbe, type ProbeVerdict } from './probe-facts'

/** One row of the order list: the candidate, a stable id for drag and drop, and its code-execution probe. */
export type OrderRow = {
  sortId: string
  index: number
  providerId: string
  config?: Record<string, unknown>
  registered: boolean
  probe?: KindProbe
  verdict: ProbeVerdict
  isolation?: IsolationFacts
  claimedAxes: number
}

/**
 * Joins the order with the probes. A provider listed twice gets `#2` on its sort id, so drag and
 * drop keeps a unique, stable id per entry.
 */
export function orderRows(candidates: readonly Candidate[], providers: readonly ProviderView[], probed: boolean): OrderRow[] {
  const seen = new Map<string, number>()
  return candidates.map((candidate, index) => {
    const count = (seen.get(candidate.providerId) ?? 0) + 1
    seen.set(candidate.providerId, count)
    const provider = providers.find((p) => p.providerId === candidate.providerId)
    const probe = probeOfKind(provider, 'code_execution')
    return {
      sortId: count === 1 ? candidate.providerId : `${candidate.providerId}#${count}`,
      index,
      providerId: candidate.providerId,
      config: candidate.config,
      registered: !probed || provider !== undefined,
      probe,
      verdict: probed ? probeVerdict(probe) : { label: 'probing', tone: 'neutral' },
      isolation: probe?.isolation,
      claimedAxes: claimedAxisCount(probe?.isolation)
    }
  })
}

/** Providers for the probe-results section: code-execution providers first (in the order), then the rest by id. */
export function providersForProbeList(providers: readonly ProviderView[], candidates: readonly Candidate[]): ProviderView[] {
  const rank = (p: ProviderView) => {
    const at = candidates.findIndex((c) => c.providerId === p.providerId)
    if (at >= 0) return at
    return p.kinds.includes('code_execution') ? 100 : 200
  }
  return [...providers].sort((a, b) => rank(a) - rank(b) || a.providerId.localeCompare(b.providerId))
}
