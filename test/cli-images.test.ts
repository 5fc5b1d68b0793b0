import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkEngine, createDockerClient } from '../src/main/providers'
import { runAirlock } from './support/run-cli'
import { skipReasonFor } from './support/components'
import { makeTempDir } from './support/temp-home'

const docker = createDockerClient()
const engine = await checkEngine(docker)
const skip = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })

describe.skipIf(skip !== undefined)(`airlock images against the engine${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const dir = makeTempDir('airlock-cli-images-')
  afterAll(async () => {
    await docker.getImage('airlock/bash:latest').remove({ force: true }).catch(() => undefined)
    dir.remove()
  })

  it('provisions an image from the operator\'s own rootfs tarball, with progress on stderr, and lists it', () => {
    const rootfs = join(dir.path, 'rootfs')
    mkdirSync(join(rootfs, 'etc'), { recursive: true })
    writeFileSync(join(rootfs, 'etc', 'os-release'), 'NAME=tiny\n')
    execFileSync('tar', ['-C', rootfs, '-cf', join(dir.path, 'rootfs.tar'), '.'])
    const result = runAirlock(['images', 'provision', 'bash', '--rootfs', join(dir.path, 'rootfs.tar'), '--home', dir.path])
    expect(result.code).toBe(0)
    expect(result.stdout.trim()).toBe('airlock/bash:latest')
    expect(result.stderr).toMatch(/provisioning bash: importing into the engine \(90%\)/)
    expect(result.stderr).toMatch(/provisioning bash: done \(100%\)/)
    const listed = JSON.parse(runAirlock(['images', 'list', '--json']).stdout) as { tags: string[]; languages: string[] }[]
    expect(listed).toContainEqual(expect.objectContaining({ tags: ['airlock/bash:latest'], languages: ['bash'] }))
  })
})
