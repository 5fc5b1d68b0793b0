import type { ProviderView } from '@shared/ipc'

const axes = [
  ['processContained', 'process contained'],
  ['hostFilesystemRestricted', 'host filesystem restricted'],
  ['privilegeEscalationBlocked', 'privilege escalation blocked'],
  ['syscallsRestricted', 'syscalls restricted']
] as const

/** One provider: per kind, whether it is available here and why not, its isolation, toolchains and limits. */
export function CardProvider({ provider, position }: { provider: ProviderView; position?: number }) {
  return (
    <article className="provider-card" data-testid={`provider-${provider.providerId}`}>
      <header className="provider-head">
        {position !== undefined && <span className="provider-position">{position + 1}</span>}
        <h3>{provider.providerId}</h3>
        <span className="muted">{provider.kinds.join(' · ')}</span>
      </header>
      {provider.probes.map((probe) => (
        <section key={probe.kind} className="provider-probe">
          <div className="probe-line">
            <code>{probe.kind}</code>
            <span
              className={`status ${probe.probed ? (probe.available ? 'status-ready' : 'status-failed') : ''}`}
              data-testid={`probe-status-${provider.providerId}-${probe.kind}`}
            >
              {probe.probed ? (probe.available ? 'available' : 'unavailable') : 'per agent'}
            </span>
            {probe.reason && <span className={probe.probed && !probe.available ? 'field-error' : 'muted'}>{probe.reason}</span>}
          </div>
          {probe.isolation && (
            <ul className="axes" aria-label="Isolation (claimed by the probe; the doctor verifies)">
              {axes.map(([key, label]) => (
                <li key={key} className={probe.isolation![key] ? 'axis-on' : 'axis-off'}>
                  {probe.isolation![key] ? '✓' : '✗'} {label}
                </li>
              ))}
              <li className="muted">
                {probe.isolation.mechanism} · network {probe.isolation.networkMode} · claimed, not yet verified by the doctor
              </li>
            </ul>
          )}
          {probe.toolchains && (
            <div className="toolchains">
              {Object.entries(probe.toolchains).map(([name, fact]) => (
                <span key={name} className={fact.available ? 'chip' : 'chip chip-off'}>
                  {name} {fact.available ? fact.version : 'absent'}
                </span>
              ))}
            </div>
          )}
          {probe.limits && (
            <div className="muted small">
              limits: {Object.entries(probe.limits).map(([limit, how]) => `${limit} ${how}`).join(' · ')}
            </div>
          )}
          {probe.diagnostics && <div className="muted small">{probe.diagnostics.join(' · ')}</div>}
        </section>
      ))}
    </article>
  )
}
