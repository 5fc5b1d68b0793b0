import { RefreshCw } from 'lucide-react'
import { useEffect, useMemo } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Button, ErrorBanner, Loading, TimeAgo, ViewHeader } from '../../../ui'
import { providersForProbeList } from '../lib/order-rows'
import { useProvidersStore } from '../store/providers-store'
import '../providers.css'
import { CardProviderProbe } from './card-provider-probe'
import { PanelDoctor } from './panel-doctor'
import { ListProviderOrder } from './list-provider-order'
import { PanelDockerImages } from './panel-docker-images'
import { PanelIsolationPolicy } from './panel-isolation-policy'

/**
 * The Providers view: the code-execution order (drag or keyboard to reorder, per-candidate
 * config), the isolation policy explained, Docker images, and every provider's probe here.
 */
export function ProvidersView() {
  const { providers, candidates, probeStatus, probeError, probedAt } = useProvidersStore(
    useShallow((state) => ({
      providers: state.providers,
      candidates: state.candidates,
      probeStatus: state.probeStatus,
      probeError: state.probeError,
      probedAt: state.probedAt
    }))
  )
  const { probe, loadOrder, loadImages, loadDoctor } = useProvidersStore(
    useShallow((state) => ({ probe: state.probe, loadOrder: state.loadOrder, loadImages: state.loadImages, loadDoctor: state.loadDoctor }))
  )
  const doctor = useProvidersStore((state) => state.doctor)
  useEffect(() => {
    // Each visit reads fresh facts: probes and images change when the machine does.
    void loadOrder()
    void probe()
    void loadImages()
    void loadDoctor()
  }, [loadOrder, probe, loadImages, loadDoctor])
  const listed = useMemo(() => providersForProbeList(providers, candidates), [providers, candidates])

  return (
    <div className="prv-view">
      <ViewHeader
        title="Providers"
        subtitle="Where agents' code runs: the order providers are tried in, what each one enforces on this machine by its own probe, and the Docker images it runs."
        actions={
          <Button
            icon={<RefreshCw size={14} />}
            busy={probeStatus === 'probing'}
            onClick={() => void Promise.all([probe(), loadImages()])}
            data-testid="providers-probe"
          >
            {probeStatus === 'probing' ? 'Probing…' : 'Probe again'}
          </Button>
        }
      />
      <div className="prv-top">
        <div className="prv-main">
          <section className="prv-section" aria-labelledby="prv-order-title">
            <h2 id="prv-order-title" className="prv-section-title">
              Code-execution order
            </h2>
            <p className="prv-muted prv-lead">
              Tried top to bottom; the first eligible provider runs the code. Drag a row by its handle, or focus the handle and press{' '}
              <kbd className="kbd">Space</kbd>, <kbd className="kbd">↑</kbd>/<kbd className="kbd">↓</kbd>, <kbd className="kbd">Space</kbd>. Every change is
              saved at once to the setting <code>code_execution.providers</code>.
            </p>
            <ListProviderOrder />
          </section>
          <PanelDockerImages />
        </div>
        <PanelIsolationPolicy />
      </div>
      <section className="prv-section" aria-labelledby="prv-probes-title">
        <div className="prv-section-head">
          <h2 id="prv-probes-title" className="prv-section-title">
            Probe results on this machine
          </h2>
          {probedAt && probeStatus !== 'probing' && (
            <span className="prv-muted prv-small">
              probed <TimeAgo iso={probedAt} />, each provider with its default config
            </span>
          )}
        </div>
        <PanelDoctor />
        {probeStatus === 'error' && <ErrorBanner message={`The probe failed: ${probeError}`} onRetry={() => void probe()} testId="providers-probe-error" />}
        {listed.length === 0 && probeStatus !== 'error' ? (
          <Loading label="Probing every provider (a second or two)…" />
        ) : (
          <div className="prv-probe-grid">
            {listed.map((provider) => {
              const position = candidates.findIndex((candidate) => candidate.providerId === provider.providerId)
              const found = doctor?.providers.find((entry) => entry.providerId === provider.providerId)
              return (
                <CardProviderProbe
                  key={provider.providerId}
                  provider={provider}
                  position={position >= 0 ? position : undefined}
                  doctor={found && doctor ? { result: found, at: doctor.finishedAt } : undefined}
                />
              )
            })}
          </div>
        )}
      </section>
    </div>
  )
}
