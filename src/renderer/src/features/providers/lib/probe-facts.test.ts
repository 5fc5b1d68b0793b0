import { describe, expect, it } from 'vitest'
import type { DoctorProviderResult } from '@shared/ipc/doctor'
import { axisRows, claimedAxisCount, doctorSummary, fixFor, isolationWords, probeVerdict, splitReason } from './probe-facts'

const isolation = {
  processContained: true,
  hostFilesystemRestricted: true,
  privilegeEscalationBlocked: false,
  syscallsRestricted: true,
  mechanism: 'container',
  networkMode: 'none' as const
}

describe('probe facts', () => {
  it('reads a probe verdict', () => {
    expect(probeVerdict(undefined)).toEqual({ label: 'not registered', tone: 'warn' })
    expect(probeVerdict({ kind: 'mcp', probed: false, available: false })).toEqual({ label: 'per agent', tone: 'neutral' })
    expect(probeVerdict({ kind: 'code_execution', probed: true, available: true }).label).toBe('available')
    expect(probeVerdict({ kind: 'code_execution', probed: true, available: false }).tone).toBe('bad')
  })

  it('lists the axes as claimed and, before the doctor ran, as not run', () => {
    const rows = axisRows(isolation)
    expect(rows.map((row) => [row.axis, row.claimed, row.verified])).toEqual([
      ['processContained', true, 'not_run'],
      ['hostFilesystemRestricted', true, 'not_run'],
      ['privilegeEscalationBlocked', false, 'not_run'],
      ['syscallsRestricted', true, 'not_run'],
      ['networkOff', true, 'not_run']
    ])
    // Counted over the axes the table shows: the network off is one of them.
    expect(claimedAxisCount(isolation)).toBe(4)
    expect(claimedAxisCount(undefined)).toBe(0)
  })

  it("shows the doctor's finding per axis, with the attempts that got through", () => {
    const doctor: DoctorProviderResult = {
      providerId: 'docker',
      available: true,
      axes: [
        { axis: 'processContained', claimed: true, status: 'verified', held: 3, tried: 3 },
        { axis: 'hostFilesystemRestricted', claimed: true, status: 'failed', held: 4, tried: 5 },
        { axis: 'privilegeEscalationBlocked', claimed: false, status: 'not_claimed', held: 0, tried: 0 },
        { axis: 'syscallsRestricted', claimed: true, status: 'unverified', held: 2, tried: 3 },
        { axis: 'networkOff', claimed: true, status: 'verified', held: 1, tried: 1 }
      ],
      checks: [
        {
          id: 'fs-docker-socket',
          axis: 'hostFilesystemRestricted',
          attack: 'reach the engine socket',
          outcome: 'escaped',
          detail: 'socket /var/run/docker.sock'
        }
      ]
    }
    const rows = axisRows(isolation, doctor)
    expect(rows.map((row) => [row.axis, row.verified, `${row.held}/${row.tried}`])).toEqual([
      ['processContained', 'verified', '3/3'],
      ['hostFilesystemRestricted', 'failed', '4/5'],
      ['privilegeEscalationBlocked', 'not_claimed', '0/0'],
      ['syscallsRestricted', 'unverified', '2/3'],
      ['networkOff', 'verified', '1/1']
    ])
    expect(rows[1]!.escapes).toEqual(['reach the engine socket: socket /var/run/docker.sock'])
    const report = { startedAt: 'a', finishedAt: 'b', machine: 'm', providers: [doctor] }
    expect(doctorSummary(report)).toBe('2 axes verified, 1 failed (docker: hostFilesystemRestricted), 1 unverified.')
  })

  it('splits the fix a provider wrote into its reason', () => {
    expect(
      splitReason(
        'bwrap cannot create user namespaces: kernel.unprivileged_userns_clone=0 (bwrap said: x). Fix: sudo sysctl -w kernel.unprivileged_userns_clone=1'
      )
    ).toEqual({
      cause: 'bwrap cannot create user namespaces: kernel.unprivileged_userns_clone=0 (bwrap said: x)',
      fix: 'sudo sysctl -w kernel.unprivileged_userns_clone=1'
    })
    expect(splitReason('bwrap not found on the PATH. Install bubblewrap (Debian/Ubuntu: apt install bubblewrap)')).toEqual({
      cause: 'bwrap not found on the PATH',
      fix: 'Install bubblewrap (Debian/Ubuntu: apt install bubblewrap)'
    })
    expect(
      splitReason(
        'the Docker engine at /var/run/docker.sock is not reachable (connect ENOENT). Start it (sudo systemctl start docker, or Docker Desktop), or set DOCKER_HOST'
      ).fix
    ).toMatch(/^Start it/)
    expect(splitReason('trusted_local is not authorised')).toEqual({ cause: 'trusted_local is not authorised' })
  })

  it('says how to fix an unavailable probe, and nothing for an available one', () => {
    expect(fixFor('docker', { kind: 'code_execution', probed: true, available: true, reason: 'x' })).toBeUndefined()
    expect(
      fixFor('trusted_local', { kind: 'code_execution', probed: true, available: false, reason: 'trusted_local is not authorised (allowUnsafeLocal)' })
    ).toMatch(/allowUnsafeLocal: true/)
    expect(fixFor('docker', { kind: 'docker', probed: true, available: false, reason: 'invalid docker config: profile bad' })).toMatch(/default config/)
    expect(fixFor('bubblewrap', { kind: 'bash', probed: true, available: false, reason: 'bwrap not found on the PATH. Install bubblewrap' })).toBe(
      'Install bubblewrap'
    )
  })
})

describe('isolationWords', () => {
  const axes = { processContained: true, hostFilesystemRestricted: true, privilegeEscalationBlocked: true, syscallsRestricted: true }
  it('says "separate kernel" only where the provider claims a kernel of its own', () => {
    expect(isolationWords({ ...axes, mechanism: 'gvisor', networkMode: 'none', kernel: 'separate' })).toBe('gvisor · separate kernel · network none')
    expect(isolationWords({ ...axes, mechanism: 'bubblewrap', networkMode: 'proxy' })).toBe('bubblewrap · shares the host kernel · network proxy')
    const none = { processContained: false, hostFilesystemRestricted: false, privilegeEscalationBlocked: false, syscallsRestricted: false }
    expect(isolationWords({ ...none, mechanism: 'trusted_local', networkMode: 'full' })).toBe('trusted_local · network full')
  })
})
