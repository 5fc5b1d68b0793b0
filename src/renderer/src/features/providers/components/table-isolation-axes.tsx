import type { DoctorProviderResult } from '@shared/ipc/doctor'
import type { IsolationFacts } from '@shared/resources'
import { Check, CircleHelp, ShieldAlert, ShieldCheck, X } from 'lucide-react'
import { Table, TimeAgo, type TableColumn } from '../../../ui'
import { axisRows, isolationWords, type AxisRow } from '../lib/probe-facts'

const columns: TableColumn[] = [{ label: 'Axis' }, { label: 'Claimed by the probe' }, { label: 'Verified by the doctor' }]

/**
 * The isolation axes: what the provider's probe claims from observed facts, and what the doctor
 * found when it tried real escapes on this machine (verified / failed / unverified), with when.
 */
export function TableIsolationAxes({
  isolation,
  caption,
  doctor,
  doctorAt
}: {
  isolation: IsolationFacts
  caption: string
  doctor?: DoctorProviderResult
  doctorAt?: string
}) {
  return (
    <Table
      columns={columns}
      caption={caption}
      className="prv-axes"
      footer={
        <tr>
          <td colSpan={3}>
            {isolationWords(isolation)}.{' '}
            {doctorAt ? (
              <>
                The doctor tried real escapes <TimeAgo iso={doctorAt} />.
              </>
            ) : (
              'Not verified yet: run the doctor to try real escapes on this machine.'
            )}
          </td>
        </tr>
      }
    >
      {axisRows(isolation, doctor).map((row) => (
        <tr key={row.axis} data-testid={doctor ? `doctor-axis-${doctor.providerId}-${row.axis}` : undefined}>
          <th scope="row" title={row.meaning}>
            {row.label}
          </th>
          <td className={row.claimed ? 'prv-claim-on' : 'prv-claim-off'}>
            {row.claimed ? <Check size={13} aria-hidden="true" /> : <X size={13} aria-hidden="true" />}
            {row.claimed ? 'claimed' : 'not enforced'}
          </td>
          <VerifiedCell row={row} />
        </tr>
      ))}
    </Table>
  )
}

function VerifiedCell({ row }: { row: AxisRow }) {
  const attempts = row.tried > 0 ? ` (${row.held}/${row.tried} held)` : ''
  if (row.verified === 'verified')
    return (
      <td className="prv-verified">
        <ShieldCheck size={13} aria-hidden="true" />
        verified{attempts}
      </td>
    )
  if (row.verified === 'failed')
    return (
      <td className="prv-failed" title={row.escapes.join('\n')}>
        <ShieldAlert size={13} aria-hidden="true" />
        failed{attempts}: {row.escapes[0]}
      </td>
    )
  if (row.verified === 'unverified')
    return (
      <td className="prv-unverified" title={row.unverifiedWhy.join('\n') || undefined}>
        <CircleHelp size={13} aria-hidden="true" />
        unverified{attempts}
        {row.unverifiedWhy[0] && <span className="prv-unverified-why">: {row.unverifiedWhy[0]}</span>}
      </td>
    )
  return <td className="prv-unverified">{row.verified === 'not_claimed' ? 'not claimed: nothing to try' : 'not run yet'}</td>
}
