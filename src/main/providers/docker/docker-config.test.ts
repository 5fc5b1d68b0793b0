import { describe, expect, it } from 'vitest'
import { containerIsolation, parseExtraArgs, parseMount } from './docker-config'

describe('docker extra args', () => {
  it('--mount becomes a HostConfig mount with its parsed fields (not a Binds entry) and turns the host filesystem axis false', () => {
    const effect = parseExtraArgs(['--mount', 'type=bind,source=/srv/data,target=/data,readonly', '--mount=type=tmpfs,dst=/scratch'])
    expect(effect.hostConfig).toEqual({
      Mounts: [
        { Type: 'bind', Source: '/srv/data', Target: '/data', ReadOnly: true },
        { Type: 'tmpfs', Target: '/scratch', ReadOnly: false }
      ]
    })
    expect(containerIsolation(effect, 'none')).toMatchObject({
      hostFilesystemRestricted: false,
      processContained: true,
      privilegeEscalationBlocked: true,
      syscallsRestricted: true
    })
  })

  it("reads docker's aliases and readonly=true|false", () => {
    expect(parseMount('src=/a,dst=/b,ro')).toEqual({ Type: 'volume', Source: '/a', Target: '/b', ReadOnly: true })
    expect(parseMount('type=volume,source=cache,destination=/cache,readonly=false')).toEqual({
      Type: 'volume',
      Source: 'cache',
      Target: '/cache',
      ReadOnly: false
    })
  })

  it("mounting the engine's socket hands over the host: every axis false", () => {
    const effect = parseExtraArgs(['--mount', 'type=bind,source=/var/run/docker.sock,target=/var/run/docker.sock'])
    expect(containerIsolation(effect, 'none')).toMatchObject({
      processContained: false,
      hostFilesystemRestricted: false,
      privilegeEscalationBlocked: false,
      syscallsRestricted: false
    })
    expect(containerIsolation(parseExtraArgs(['-v', '/run/docker.sock:/sock']), 'none').privilegeEscalationBlocked).toBe(false)
  })

  it('refuses mount options it would not apply, with a typed error', () => {
    for (const spec of [
      'type=bind,source=/a,target=/b,bind-propagation=shared',
      'type=npipe,source=/a,target=/b',
      'type=bind,target=/b',
      'type=bind,source=/a,target=relative',
      'source=/a,target=/b,readonly=maybe'
    ]) {
      expect(() => parseExtraArgs(['--mount', spec])).toThrow(expect.objectContaining({ code: 'docker.extra_args_refused' }))
    }
  })
})
