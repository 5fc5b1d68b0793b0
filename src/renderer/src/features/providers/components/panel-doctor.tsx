import { Stethoscope } from 'lucide-react'
import { useShallow } from 'zustand/react/shallow'
import { Button, ErrorBanner, TimeAgo } from '../../../ui'
import { doctorSummary } from '../lib/probe-facts'
import { useProvidersStore } from '../store/providers-store'

/**
 * The doctor's bar: when it last tried real escapes here and what it found (axes verified, failed,
 * unverified), with the button that runs it again. Per axis results sit in each provider's table.
 */
export function PanelDoctor() {
  const { report, status, error, runDoctor } = useProvidersStore(
    useShallow((state) => ({ report: state.doctor, status: state.doctorStatus, error: state.doctorError, runDoctor: state.runDoctor }))
  )
  const summary = report ? doctorSummary(report) : undefined
  return (
    <div className="prv-doctor" data-testid="providers-doctor">
      <Stethoscope size={16} aria-hidden="true" className="prv-doctor-icon" />
      <p className="prv-doctor-text" data-testid="providers-doctor-summary" aria-live="polite">
        {status === 'running' ? (
          'The doctor is trying real escapes in each provider (write outside, read secrets, signal host processes, gain privileges, mount, connect out)…'
        ) : summary ? (
          <>
            <strong>Doctor</strong> ran <TimeAgo iso={report!.finishedAt} />: {summary}
          </>
        ) : (
          <>
            <strong>Doctor</strong> has not run on this machine yet. It tries real escapes in each code-execution provider and marks every claimed axis verified
            or failed.
          </>
        )}
      </p>
      <Button icon={<Stethoscope size={14} />} busy={status === 'running'} onClick={() => void runDoctor()} data-testid="providers-doctor-run">
        {status === 'running' ? 'Running…' : report ? 'Run the doctor again' : 'Run the doctor'}
      </Button>
      {status === 'error' && error && (
        <ErrorBanner message={`The doctor could not run: ${error}`} onRetry={() => void runDoctor()} testId="providers-doctor-error" />
      )}
    </div>
  )
}
