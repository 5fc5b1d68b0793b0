import type { IsolationFacts } from '@shared/resources'
import { Check, X } from 'lucide-react'
import { axisRows } from '../lib/probe-facts'

/**
 * The four isolation axes: what the provider's probe claims from observed facts, and the
 * verification column stated honestly (the doctor, which tries real escapes, is not in this build).
 */
export function TableIsolationAxes({ isolation, caption }: { isolation: IsolationFacts; caption: string }) {
  return (
    <table className="prv-axes">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Axis</th>
          <th scope="col">Claimed by the probe</th>
          <th scope="col">Verified by the doctor</th>
        </tr>
      </thead>
      <tbody>
        {axisRows(isolation).map((row) => (
          <tr key={row.axis}>
            <th scope="row" title={row.meaning}>
              {row.label}
            </th>
            <td className={row.claimed ? 'prv-claim-on' : 'prv-claim-off'}>
              {row.claimed ? <Check size={13} aria-hidden="true" /> : <X size={13} aria-hidden="true" />}
              {row.claimed ? 'claimed' : 'not enforced'}
            </td>
            <td className="prv-unverified">not yet verified</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <td colSpan={3}>
            {isolation.mechanism} · network {isolation.networkMode}. Claimed by the provider's probe, not yet verified — the doctor is not in this build.
          </td>
        </tr>
      </tfoot>
    </table>
  )
}
