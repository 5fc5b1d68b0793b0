import type { ProvisionProgress } from '../lib/images'

/** The progress of the provisioning in flight (or how it ended): stage, a progress bar, the host's failure message. */
export function ProgressProvisioning({ progress }: { progress: ProvisionProgress }) {
  const label = progress.language ? `Provisioning ${progress.language}` : `Provisioning ${progress.image}`
  if (progress.state === 'failed') {
    return (
      <div className="prv-progress prv-progress-failed" role="alert" data-testid="provider-image-progress">
        <strong>{label} failed:</strong> {progress.error}
      </div>
    )
  }
  const percent = progress.percent === undefined ? undefined : Math.round(progress.percent)
  return (
    <div className={`prv-progress${progress.state === 'done' ? ' prv-progress-done' : ''}`} data-testid="provider-image-progress">
      <div className="prv-progress-line">
        <span>{progress.state === 'done' ? `${progress.image}: provisioned` : `${label}: ${progress.stage}`}</span>
        <span className="prv-num">{percent === undefined ? '' : `${percent}%`}</span>
      </div>
      <div
        className="prv-bar"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={percent === undefined ? progress.stage : `${percent}% — ${progress.stage}`}
      >
        <div className={`prv-bar-fill${percent === undefined ? ' prv-bar-indeterminate' : ''}`} style={{ width: `${percent ?? 30}%` }} />
      </div>
    </div>
  )
}
