import { describe, expect, it } from 'vitest'
import { defaultLimits, hardenedHostConfig } from './container-spec'
import { parseExtraArgs } from './docker-config'

// The engine's answer to these is in test/security/docker-ping-sockets.test.ts; here, what the
// host config asks of it on each network a container can have.
describe('hardened host config: ping sockets', () => {
  it.each(['none', 'full'] as const)('a container with network %s has its own network namespace, with ping sockets for no group', (network) => {
    expect(hardenedHostConfig({ limits: defaultLimits, network })).toMatchObject({
      NetworkMode: network === 'full' ? 'bridge' : 'none',
      Sysctls: { 'net.ipv4.ping_group_range': '1 0' }
    })
  })

  it('--network host sets no network sysctl (the engine would refuse to create the container)', () => {
    const config = hardenedHostConfig({ limits: defaultLimits, network: 'none', effect: parseExtraArgs(['--network', 'host']) })
    expect(config.NetworkMode).toBe('host')
    expect(config.Sysctls).toBeUndefined()
  })
})
