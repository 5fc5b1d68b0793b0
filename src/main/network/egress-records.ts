import type { EgressRecord } from '@shared/network'
import type { EgressAdmission } from './egress-gate'

/** The record of one decided connection (bytes filled in once it closes). */
export function entryOf(port: number, admission: EgressAdmission): EgressRecord {
  return {
    host: admission.host,
    port,
    ...(admission.ok ? { address: admission.address } : { reason: admission.reason }),
    decision: admission.ok ? 'allowed' : 'denied',
    ...(admission.rule ? { rule: admission.rule } : {}),
    bytesUp: 0,
    bytesDown: 0,
    at: new Date().toISOString()
  }
}
