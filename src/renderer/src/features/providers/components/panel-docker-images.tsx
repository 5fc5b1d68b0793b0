import { Download, HardDrive } from 'lucide-react'
import { useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Badge, Button, ErrorBanner, Loading, Table, TimeAgo, type TableColumn } from '../../../ui'
import { formatBytes, imagesOfLanguage } from '../lib/images'
import { splitReason } from '../lib/probe-facts'
import { useProvidersStore } from '../store/providers-store'
import { ProgressProvisioning } from './progress-provisioning'

const columns: TableColumn[] = [
  { label: 'Language' },
  { label: 'Image' },
  { label: 'Size', numeric: true },
  { label: 'Built' },
  { label: 'Actions', hidden: true }
]

/**
 * The Docker engine's Airlock images per language, with a provision button each (offline from
 * Debian packages, or from the registry) and the progress of the one provisioning at a time.
 */
export function PanelDockerImages() {
  const { images, status, error, provisioning, provisionError, progress } = useProvidersStore(
    useShallow((state) => ({
      images: state.images,
      status: state.imagesStatus,
      error: state.imagesError,
      provisioning: state.provisioningLanguage ?? state.images?.provisioning,
      provisionError: state.provisionError,
      progress: state.progress
    }))
  )
  const loadImages = useProvidersStore((state) => state.loadImages)
  const provision = useProvidersStore((state) => state.provision)
  const [offline, setOffline] = useState(true)
  const engine = images?.engine
  const engineReason = engine && !engine.ok && engine.reason ? splitReason(engine.reason) : undefined
  const labelled = new Set(images?.languages.flatMap((language) => imagesOfLanguage(images.images, language).map((image) => image.id)) ?? [])
  const others = images?.images.filter((image) => !labelled.has(image.id)) ?? []

  return (
    <section className="prv-panel prv-images" data-testid="provider-images" aria-labelledby="prv-images-title">
      <header className="prv-images-head">
        <h3 id="prv-images-title">Docker images</h3>
        {engine && (
          <Badge tone={engine.ok ? 'ok' : 'bad'} testId="provider-images-engine">
            {engine.ok ? 'engine reachable' : 'engine unreachable'}
          </Badge>
        )}
      </header>
      <p className="prv-muted">
        The docker provider runs each language in its Airlock image (<code>airlock/&lt;language&gt;</code>). The <code>strict</code> profile never pulls: a
        missing image fails the call until you provision it here (or with <code>airlock images provision</code>).
      </p>
      {status === 'error' && <ErrorBanner message={`Could not list the images: ${error}`} onRetry={() => void loadImages()} testId="provider-images-error" />}
      {(status === 'idle' || status === 'loading') && <Loading label="Asking the Docker engine…" />}
      {engineReason && (
        <div className="prv-engine-down" role="status">
          <p>{engineReason.cause}</p>
          {engineReason.fix && (
            <p>
              <strong>How to fix:</strong> {engineReason.fix}
            </p>
          )}
        </div>
      )}
      {images && engine?.ok && (
        <>
          <fieldset className="prv-mode">
            <legend>How to provision</legend>
            <label>
              <input type="radio" name="prv-provision-mode" checked={offline} onChange={() => setOffline(true)} data-testid="provider-provision-offline" />
              Offline: build from Debian packages here (debootstrap, then docker import; no registry)
            </label>
            <label>
              <input type="radio" name="prv-provision-mode" checked={!offline} onChange={() => setOffline(false)} data-testid="provider-provision-registry" />
              Pull the language&apos;s registry image
            </label>
            <span className="prv-small prv-muted">Either way the toolchain is run in the image as the sandbox user before it is kept.</span>
          </fieldset>
          {progress && <ProgressProvisioning progress={progress} />}
          {provisionError && <ErrorBanner message={`Provisioning did not start: ${provisionError}`} testId="provider-provision-error" />}
          <Table columns={columns} caption="Airlock images by language" className="prv-table">
            {images.languages.map((language) => {
              const [image] = imagesOfLanguage(images.images, language)
              const running = provisioning === language
              return (
                <tr key={language} data-testid={`provider-image-${language}`}>
                  <th scope="row">{language}</th>
                  <td>{image ? <code>{image.tags.join(', ') || image.id.slice(0, 19)}</code> : <span className="prv-muted">not provisioned</span>}</td>
                  <td className="table-num">{image ? formatBytes(image.sizeBytes) : '—'}</td>
                  <td>{image ? <TimeAgo iso={image.created} /> : '—'}</td>
                  <td className="prv-actions">
                    <Button
                      size="sm"
                      variant="secondary"
                      icon={<Download size={14} />}
                      busy={running}
                      disabled={provisioning !== undefined && !running}
                      data-testid={`provider-provision-${language}`}
                      aria-label={`${image ? 'Provision again' : 'Provision'} the ${language} image`}
                      onClick={() => void provision(language, offline)}
                    >
                      {running ? 'Provisioning…' : image ? 'Provision again' : 'Provision'}
                    </Button>
                  </td>
                </tr>
              )
            })}
            {others.map((image) => (
              <tr key={image.id}>
                <th scope="row">{image.languages.join(', ') || '—'}</th>
                <td>
                  <code>{image.tags.join(', ') || image.id.slice(0, 19)}</code>
                </td>
                <td className="table-num">{formatBytes(image.sizeBytes)}</td>
                <td>
                  <TimeAgo iso={image.created} />
                </td>
                <td />
              </tr>
            ))}
          </Table>
          {images.images.length === 0 && (
            <p className="prv-muted prv-small prv-none" data-testid="provider-images-none">
              <HardDrive size={13} aria-hidden="true" /> No Airlock image on this engine yet. Provision the languages your agents run; until then the docker
              provider fails their calls under the strict profile.
            </p>
          )}
        </>
      )}
    </section>
  )
}
