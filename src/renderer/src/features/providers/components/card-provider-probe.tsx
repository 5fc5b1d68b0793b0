import type { ProviderView } from '@shared/ipc'
import type { DoctorProviderResult } from '@shared/ipc/doctor'
import { Wrench } from 'lucide-react'
import { Badge } from '../../../ui'
import { fixFor, probeVerdict, splitReason, type KindProbe } from '../lib/probe-facts'
import { TableIsolationAxes } from './table-isolation-axes'

/** What the doctor found for a provider's code execution, and when. */
type DoctorFindings = { result: DoctorProviderResult; at: string }

/** One provider's probe results per kind: available or why not and how to fix it, claimed axes, toolchains and limits. */
export function CardProviderProbe({ provider, position, doctor }: { provider: ProviderView; position?: number; doctor?: DoctorFindings }) {
  return (
    <article className="prv-panel prv-probe-card" data-testid={`provider-${provider.providerId}`} aria-labelledby={`prv-probe-${provider.providerId}`}>
      <header className="prv-probe-head">
        <h3 id={`prv-probe-${provider.providerId}`}>
          <code>{provider.providerId}</code>
        </h3>
        {position !== undefined && <Badge tone="info">#{position + 1} in the order</Badge>}
        <span className="prv-muted prv-small">{provider.kinds.join(' · ')}</span>
      </header>
      {provider.probes.map((probe, index) => (
        <KindSection
          key={probe.kind}
          providerId={provider.providerId}
          probe={probe}
          earlier={provider.probes.slice(0, index)}
          doctor={probe.kind === 'code_execution' ? doctor : undefined}
        />
      ))}
    </article>
  )
}

/** One kind's probe; facts identical to an earlier kind's of the same provider are named, not repeated. */
function KindSection({ providerId, probe, earlier, doctor }: { providerId: string; probe: KindProbe; earlier: KindProbe[]; doctor?: DoctorFindings }) {
  const verdict = probeVerdict(probe)
  const reason = probe.reason ? splitReason(probe.reason) : undefined
  const fix = fixFor(providerId, probe)
  const failed = probe.probed && !probe.available
  const sameAs = (pick: (p: KindProbe) => unknown) =>
    earlier.find((other) => pick(other) !== undefined && JSON.stringify(pick(other)) === JSON.stringify(pick(probe)))?.kind
  const sameFix = earlier.find((other) => fix !== undefined && fixFor(providerId, other) === fix)?.kind
  const sameIsolation = sameAs((p) => p.isolation)
  const sameToolchains = sameAs((p) => p.toolchains)
  const sameLimits = sameAs((p) => p.limits)
  const repeated = [sameIsolation && 'isolation', sameToolchains && 'toolchains', sameLimits && 'limits'].filter(Boolean) as string[]
  return (
    <section className="prv-kind">
      <div className="prv-kind-line">
        <code className="prv-kind-name">{probe.kind}</code>
        <Badge tone={verdict.tone} testId={`probe-status-${providerId}-${probe.kind}`}>
          {verdict.label}
        </Badge>
        {reason && <span className={failed ? 'prv-reason prv-reason-bad' : 'prv-reason'}>{failed ? reason.cause : probe.reason}</span>}
      </div>
      {fix && !sameFix && (
        <p className={providerId === 'trusted_local' ? 'prv-fix prv-fix-info' : 'prv-fix'} data-testid={`probe-fix-${providerId}-${probe.kind}`}>
          <Wrench size={13} aria-hidden="true" />
          <span>
            <strong>How to fix:</strong> {fix}
          </span>
        </p>
      )}
      {(sameFix || repeated.length > 0) && (
        <p className="prv-same">
          {sameText([sameFix && 'fix', ...repeated].filter(Boolean) as string[], sameFix ?? sameIsolation ?? sameToolchains ?? sameLimits)}
        </p>
      )}
      {probe.isolation && !sameIsolation && (
        <TableIsolationAxes isolation={probe.isolation} caption={`${providerId} ${probe.kind} isolation`} doctor={doctor?.result} doctorAt={doctor?.at} />
      )}
      {probe.toolchains && !sameToolchains && Object.keys(probe.toolchains).length > 0 && (
        <div className="prv-facts-line">
          <span className="prv-fact-label">Toolchains</span>
          <ul className="prv-chips" aria-label={`${providerId} toolchains`}>
            {Object.entries(probe.toolchains).map(([name, fact]) => (
              <li key={name} className={fact.available ? 'prv-chip' : 'prv-chip prv-chip-off'}>
                {name} {fact.available ? (fact.version ?? 'found') : 'absent'}
              </li>
            ))}
          </ul>
        </div>
      )}
      {probe.limits && !sameLimits && Object.keys(probe.limits).length > 0 && (
        <div className="prv-facts-line">
          <span className="prv-fact-label">Limits</span>
          <span className="prv-small">
            {Object.entries(probe.limits)
              .map(([limit, how]) => `${limit}: ${how}`)
              .join(' · ')}
          </span>
        </div>
      )}
      {probe.diagnostics && probe.diagnostics.length > 0 && (
        <ul className="prv-diagnostics">
          {probe.diagnostics.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </section>
  )
}

/** "Same fix, isolation and limits as code_execution." */
function sameText(facts: string[], kind: string | undefined): string {
  const list = facts.length > 1 ? `${facts.slice(0, -1).join(', ')} and ${facts.at(-1)}` : facts[0]
  return `Same ${list} as ${kind}.`
}
