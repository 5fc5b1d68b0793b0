import { useEffect } from 'react'
import { ViewHeader } from '../../../app/view-header'
import { useProvidersStore } from '../store/providers-store'
import { CardProvider } from './card-provider'

/** The Providers view: the ordered code-execution providers first, then every other provider, with their probes. */
export function ProvidersView() {
  const { providers, order, status, error, probe, imageProgress } = useProvidersStore()
  useEffect(() => {
    if (status === 'idle') void probe()
  }, [status, probe])
  const ordered = order.map((id) => ({ id, provider: providers.find((p) => p.providerId === id) }))
  const others = providers.filter((p) => !order.includes(p.providerId))
  return (
    <>
      <ViewHeader title="Providers" subtitle="What each provider really enforces on this machine, from its own probe." />
      <div className="toolbar">
        <button type="button" className="button-secondary" data-testid="providers-probe" disabled={status === 'probing'} onClick={() => void probe()}>
          {status === 'probing' ? 'Probing…' : 'Probe again'}
        </button>
        <span className="muted small">Change the order in Settings → code_execution.providers.</span>
      </div>
      {error && (
        <div className="banner banner-error" role="alert">
          {error}
        </div>
      )}
      {imageProgress && (
        <div className="image-progress" data-testid="image-progress">
          <span>
            {imageProgress.image}: {imageProgress.stage}
          </span>
          <progress max={100} value={imageProgress.percent} />
        </div>
      )}
      <h2 className="section-title">Code execution, in the order tried</h2>
      <div className="provider-list" data-testid="provider-order">
        {ordered.map(({ id, provider }, index) =>
          provider ? (
            <CardProvider key={id} provider={provider} position={index} />
          ) : (
            <article key={id} className="provider-card" data-testid={`provider-${id}`}>
              <header className="provider-head">
                <span className="provider-position">{index + 1}</span>
                <h3>{id}</h3>
                <span className="status status-failed">not installed</span>
              </header>
              <p className="muted">No provider with this id is registered in this build; it is skipped.</p>
            </article>
          )
        )}
      </div>
      <h2 className="section-title">Other providers</h2>
      <div className="provider-list">
        {others.map((provider) => (
          <CardProvider key={provider.providerId} provider={provider} />
        ))}
      </div>
    </>
  )
}
