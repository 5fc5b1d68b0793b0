import type { HistoryDetail } from '@shared/ipc/history'
import { Check, TriangleAlert, X } from 'lucide-react'
import { TextAgent } from '../../../ui'
import { providerFacts } from '../lib/call-facts'
import { humanKey } from '../lib/format'
import { FactCall, SectionCall } from './section-call'

/** Which provider ran the call, the isolation it recorded (axes, mechanism, network), any fallback, and the providers it considered. */
export function PaneCallProvider({ detail }: { detail: HistoryDetail }) {
  const facts = providerFacts(detail.provider)
  return (
    <SectionCall title="Provider and isolation" testId="history-detail-provider">
      {!facts ? (
        <p className="history-dim">No execution provider was recorded: file tools run in Airlock itself, and a call stopped before it ran has none.</p>
      ) : (
        <>
          <dl className="history-facts history-facts-list">
            <FactCall label="Provider" wide>
              <span className="history-inline">
                <strong>{facts.providerId ?? 'none ran it'}</strong>
                {facts.mechanism && <code>{facts.mechanism}</code>}
                {facts.networkMode && <span className="history-dim">network {facts.networkMode}</span>}
              </span>
            </FactCall>
            {facts.axes.length > 0 && (
              <FactCall label="Isolation" wide>
                <ul className="history-axes" aria-label="Isolation recorded for this call">
                  {facts.axes.map((axis) => (
                    <li key={axis.label} className={axis.on ? 'is-on' : 'is-off'}>
                      {axis.on ? <Check size={13} aria-hidden="true" /> : <X size={13} aria-hidden="true" />}
                      <span className="visually-hidden">{axis.on ? 'yes:' : 'no:'}</span> {axis.label}
                    </li>
                  ))}
                </ul>
              </FactCall>
            )}
          </dl>
          {facts.fallback && (
            <div className="history-callout history-callout-warn" role="note" data-testid="history-detail-fallback">
              <TriangleAlert size={14} aria-hidden="true" />
              <span>
                <strong>Isolation fallback:</strong> <TextAgent text={facts.fallback} />. A weaker provider than the profile prefers ran this call.
              </span>
            </div>
          )}
          {facts.probes.length > 0 && (
            <div className="history-probes">
              <span className="history-fact-label">Providers considered, in order</span>
              <ol>
                {facts.probes.map((probe) => (
                  <li key={probe.providerId} className={probe.eligible ? 'is-on' : 'is-off'}>
                    {probe.eligible ? <Check size={13} aria-hidden="true" /> : <X size={13} aria-hidden="true" />}
                    <span className="visually-hidden">{probe.eligible ? 'eligible:' : 'not eligible:'}</span>
                    <code>{probe.providerId}</code>
                    {probe.reason && (
                      <span className="history-dim">
                        <TextAgent text={probe.reason} />
                      </span>
                    )}
                  </li>
                ))}
              </ol>
            </div>
          )}
          {facts.other.length > 0 && (
            <dl className="history-facts history-facts-list history-facts-other">
              {facts.other.map(([key, value]) => (
                <FactCall key={key} label={humanKey(key)} wide>
                  <code className="history-break">
                    <TextAgent text={value} />
                  </code>
                </FactCall>
              ))}
            </dl>
          )}
        </>
      )}
    </SectionCall>
  )
}
