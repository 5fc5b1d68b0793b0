import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkEngine, createDockerClient } from '../../src/main/providers'
import { runAirlock } from '../support/run-cli'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

const docker = createDockerClient()
const engine = await checkEngine(docker)
const skip = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })

/** A tiny root filesystem holding just the host's bash (as /usr/bin/bash) and the libraries it loads; `/usr` gets `usrMode`. */
function bashRootfs(root: string, usrMode: number): string {
  for (const [from, to] of [['/bin/bash', '/usr/bin/bash'], ...sharedLibraries('/bin/bash').map((file) => [file, file])] as const) {
    mkdirSync(join(root, dirname(to)), { recursive: true, mode: 0o755 })
    copyFileSync(realpathSync(from), join(root, to))
  }
  chmodSync(join(root, 'usr', 'bin', 'bash'), 0o755)
  chmodSync(join(root, 'usr'), usrMode)
  const tarball = `${root}.tar`
  execFileSync('tar', ['--numeric-owner', '--owner=0', '--group=0', '-C', root, '-cf', tarball, '.'])
  return tarball
}

/** The absolute paths `ldd` lists for a program (its libraries and the dynamic loader). */
function sharedLibraries(program: string): string[] {
  return [...execFileSync('ldd', [program], { encoding: 'utf8' }).matchAll(/(\/\S+) \(0x/g)].map((match) => match[1]!)
}

const listed = () => JSON.parse(runAirlock(['images', 'list', '--json']).stdout) as { tags: string[]; languages: string[] }[]

describe.skipIf(skip !== undefined)(`airlock images against the engine${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const dir = makeTempDir('airlock-cli-images-')
  afterAll(async () => {
    await docker
      .getImage('airlock/bash:latest')
      .remove({ force: true })
      .catch(() => undefined)
    dir.remove()
  })

  it('refuses an image the sandbox uid cannot use (a private /usr, as a 0700 scratch directory once made `/`), says why, and keeps no image', () => {
    const tarball = bashRootfs(join(dir.path, 'private-usr'), 0o700)
    const result = runAirlock(['images', 'provision', 'bash', '--rootfs', tarball, '--home', dir.path])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/provisioning bash: checking the toolchains as the sandbox user \(95%\)/)
    expect(result.stderr).toMatch(/airlock: The image airlock\/bash:latest cannot run bash as uid \d+ .*mode 0755/)
    expect(result.stdout.trim()).toBe('')
    expect(listed()).not.toContainEqual(expect.objectContaining({ tags: ['airlock/bash:latest'] }))
  })

  it("provisions an image from the operator's own rootfs tarball, checks it as the sandbox uid, reports progress on stderr, and lists it", () => {
    const tarball = bashRootfs(join(dir.path, 'rootfs'), 0o755)
    const result = runAirlock(['images', 'provision', 'bash', '--rootfs', tarball, '--home', dir.path])
    expect(result.stderr).toMatch(/provisioning bash: importing into the engine \(90%\)/)
    expect(result.stderr).toMatch(/provisioning bash: checking the toolchains as the sandbox user \(95%\)/)
    expect(result.stderr).toMatch(/provisioning bash: done \(100%\)/)
    expect(result.code).toBe(0)
    expect(result.stdout.trim()).toBe('airlock/bash:latest')
    expect(listed()).toContainEqual(expect.objectContaining({ tags: ['airlock/bash:latest'], languages: ['bash'] }))
  })
})
