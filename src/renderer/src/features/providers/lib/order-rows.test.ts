import { describe, expect, it } from 'vitest'
import { orderRows, providersForProbeList } from './order-rows'

const isolation = {
  processContained: true,
  hostFilesystemRestricted: true,
  privilegeEscalationBlocked: true,
  syscallsRestricted: true,
  mechanism: 'bubblewrap',
  networkMode: 'none' as const
}
const providers = [
  { providerId: 'sqlite', kinds: ['sqlite'], probes: [{ kind: 'sqlite', probed: true, available: true }] },
  { providerId: 'trusted_local', kinds: ['code_execution'], probes: [{ kind: 'code_execution', probed: true, available: false, reason: 'not authorised' }] },
  { providerId: 'bubblewrap', kinds: ['code_execution', 'bash'], probes: [{ kind: 'code_execution', probed: true, available: true, isolation }] },
  { providerId: 'docker', kinds: ['code_execution'], probes: [{ kind: 'code_execution', probed: true, available: false, reason: 'engine down' }] }
]

describe('order rows', () => {
  it('joins each candidate with its code-execution probe', () => {
    const rows = orderRows(
      [{ providerId: 'bubblewrap' }, { providerId: 'docker', config: { profile: 'strict' } }, { providerId: 'firecracker' }],
      providers,
      true
    )
    expect(rows.map((row) => [row.sortId, row.verdict.label, row.claimedAxes, row.registered])).toEqual([
      ['bubblewrap', 'available', 5, true],
      ['docker', 'unavailable', 0, true],
      ['firecracker', 'not registered', 0, false]
    ])
    expect(rows[1]!.config).toEqual({ profile: 'strict' })
  })

  it('gives a provider listed twice distinct sort ids', () => {
    expect(orderRows([{ providerId: 'docker' }, { providerId: 'docker', config: { language: 'go' } }], providers, true).map((row) => row.sortId)).toEqual([
      'docker',
      'docker#2'
    ])
  })

  it('does not call a provider unregistered before the probe answered', () => {
    expect(orderRows([{ providerId: 'docker' }], [], false)[0]).toMatchObject({ registered: true, verdict: { label: 'probing' } })
  })

  it('lists the ordered providers first, then other code-execution providers, then the rest', () => {
    expect(providersForProbeList(providers, [{ providerId: 'docker' }, { providerId: 'bubblewrap' }]).map((p) => p.providerId)).toEqual([
      'docker',
      'bubblewrap',
      'trusted_local',
      'sqlite'
    ])
  })
})
