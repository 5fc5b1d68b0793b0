import { describe, expect, it } from 'vitest'
import { axisRows, claimedAxisCount, fixFor, probeVerdict, splitReason } from './probe-facts'

const isolation = { processContained: true, hostFilesystemRestricted: true, privilegeEscalationBlocked: false, syscallsRestricted: true, mechanism: 'container', networkMode: 'none' as const }

describe('probe facts', () => {
  it('reads a probe verdict', () => {
    expect(probeVerdict(undefined)).toEqual({ label: 'not registered', tone: 'warn' })
    expect(probeVerdict({ kind: 'mcp', probed: false, available: false })).toEqual({ label: 'per agent', tone: 'neutral' })
    expect(probeVerdict({ kind: 'code_execution', probed: true, available: true }).label).toBe('available')
    expect(probeVerdict({ kind: 'code_execution', probed: true, available: false }).tone).toBe('bad')
  })

  it('lists the four axes as claimed, never as verified', () => {
    const rows = axisRows(isolation)
    expect(rows.map((row) => [row.axis, row.claimed, row.verified])).toEqual([
      ['processContained', true, 'not_verified'],
      ['hostFilesystemRestricted', true, 'not_verified'],
      ['privilegeEscalationBlocked', false, 'not_verified'],
      ['syscallsRestricted', true, 'not_verified']
    ])
    expect(claimedAxisCount(isolation)).toBe(3)
    expect(claimedAxisCount(undefined)).toBe(0)
  })

  it('splits the fix a provider wrote into its reason', () => {
    expect(splitReason('bwrap cannot create user namespaces: kernel.unprivileged_userns_clone=0 (bwrap said: x). Fix: sudo sysctl -w kernel.unprivileged_userns_clone=1')).toEqual({
      cause: 'bwrap cannot create user namespaces: kernel.unprivileged_userns_clone=0 (bwrap said: x)',
      fix: 'sudo sysctl -w kernel.unprivileged_userns_clone=1'
    })
    expect(splitReason('bwrap not found on the PATH. Install bubblewrap (Debian/Ubuntu: apt install bubblewrap)')).toEqual({
      cause: 'bwrap not found on the PATH',
      fix: 'Install bubblewrap (Debian/Ubuntu: apt install bubblewrap)'
    })
    expect(splitReason('the Docker engine at /var/run/docker.sock is not reachable (connect ENOENT). Start it (sudo systemctl start docker, or Docker Desktop), or set DOCKER_HOST').fix).toMatch(/^Start it/)
    expect(splitReason('trusted_local is not authorised')).toEqual({ cause: 'trusted_local is not authorised' })
  })

  it('says how to fix an unavailable probe, and nothing for an available one', () => {
    expect(fixFor('docker', { kind: 'code_execution', probed: true, available: true, reason: 'x' })).toBeUndefined()
    expect(fixFor('trusted_local', { kind: 'code_execution', probed: true, available: false, reason: 'trusted_local is not authorised (allowUnsafeLocal)' })).toMatch(/allowUnsafeLocal: true/)
    expect(fixFor('docker', { kind: 'docker', probed: true, available: false, reason: 'invalid docker config: profile bad' })).toMatch(/default config/)
    expect(fixFor('bubblewrap', { kind: 'bash', probed: true, available: false, reason: 'bwrap not found on the PATH. Install bubblewrap' })).toBe('Install bubblewrap')
  })
})
