import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, realpathSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipReasonFor } from '../../../test/support/components'
import { makeTempDir } from '../../../test/support/temp-home'
import { checkEngine, createDockerClient } from '../providers'
import { dockerImageEngine } from '../host/image-engine'
import { ImageProvisioning, type ImageProgress } from './image-provisioning'

// The Providers view's images against the real Docker engine: what `providers.images` lists, one
// provisioning at a time, progress that ends at 100 only when the image is there and checked, and a
// failure that ends with `failed: <message>`. The full debootstrap path is proven by the docker
// provider's own first-run test; here the operator's root filesystem (a bash-only tarball made from
// this machine's bash) keeps the run to seconds.

const docker = createDockerClient()
const engine = await checkEngine(docker)
const skip = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })

/** A root filesystem with bash and the libraries it links: enough for the image check to run `bash -c 'echo 1'`. */
function bashRootfs(dir: string): string {
  const root = join(dir, 'rootfs')
  const files = ['/usr/bin/bash', ...execFileSync('ldd', ['/usr/bin/bash'], { encoding: 'utf8' }).matchAll(/(\/\S+)/g)].map((m) =>
    typeof m === 'string' ? m : m[1]!
  )
  for (const file of files) {
    mkdirSync(join(root, dirname(file)), { recursive: true, mode: 0o755 })
    copyFileSync(realpathSync(file), join(root, file))
  }
  mkdirSync(join(root, 'bin'), { mode: 0o755 })
  copyFileSync('/usr/bin/bash', join(root, 'bin/bash'))
  chmodSync(join(root, 'usr/bin/bash'), 0o755)
  chmodSync(join(root, 'bin/bash'), 0o755)
  chmodSync(root, 0o755)
  const tarball = join(dir, 'rootfs.tar')
  execFileSync('tar', ['--numeric-owner', '-C', root, '-cf', tarball, '.'])
  return tarball
}

/** Waits until a progress list ends (done at 100 or failed). */
async function ended(events: ImageProgress[], timeoutMs = 120_000): Promise<ImageProgress> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const last = events.at(-1)
    if (last && (last.percent === 100 || last.stage.startsWith('failed:'))) return last
    if (Date.now() > until) throw new Error(`no end of provisioning: ${JSON.stringify(events)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe.skipIf(skip !== undefined)(`image provisioning from the console${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  const tag = `console-${randomUUID().slice(0, 8)}`
  const image = `airlock/bash:${tag}`
  beforeAll(() => {
    dir = makeTempDir('airlock-images-')
  })
  afterAll(async () => {
    await docker
      .getImage(image)
      .remove({ force: true })
      .catch(() => undefined)
    dir.remove()
  })

  it('provisions one image at a time, reports progress below 100 until it is checked, then lists it', async () => {
    const events: ImageProgress[] = []
    const images = new ImageProvisioning({
      engine: dockerImageEngine(docker),
      workDir: join(dir.path, 'images'),
      onProgress: (p) => events.push(p),
      provision: { rootfsTarball: bashRootfs(dir.path), tag }
    })
    await expect(images.provision('bash', { offline: true })).resolves.toEqual({ started: true })
    // While it runs: the view sees which language, and a second provisioning is refused by name.
    expect((await images.images()).provisioning).toBe('bash')
    await expect(images.provision('python', { offline: true })).rejects.toMatchObject({
      code: 'providers.provisioning_busy',
      message: expect.stringContaining('bash image is being provisioned')
    })
    const last = await ended(events)
    expect(last).toEqual({ image, stage: 'done', percent: 100 })
    expect(events.slice(0, -1).every((e) => e.image === image && (e.percent ?? 0) < 100)).toBe(true)
    expect(events.map((e) => e.stage)).toEqual(expect.arrayContaining(['importing into the engine', 'checking the toolchains as the sandbox user']))
    await images.idle()
    const listed = await images.images()
    expect(listed).toMatchObject({ engine: { ok: true }, languages: expect.arrayContaining(['python', 'nodejs', 'bash', 'go', 'cpp']) })
    expect(listed.provisioning).toBeUndefined()
    expect(listed.images.find((i) => i.tags.includes(image))).toMatchObject({ languages: ['bash'], sizeBytes: expect.any(Number), created: expect.any(String) })
  }, 180_000)

  it('ends a provisioning that fails with a `failed:` stage saying why, and then takes the next one', async () => {
    const events: ImageProgress[] = []
    // Nothing listens on port 9 here: debootstrap cannot fetch the release file.
    const images = new ImageProvisioning({
      engine: dockerImageEngine(docker),
      workDir: join(dir.path, 'images'),
      onProgress: (p) => events.push(p),
      provision: { mirror: 'http://127.0.0.1:9/debian', tag: `${tag}-fail` }
    })
    await images.provision('bash', { offline: true })
    const last = await ended(events)
    expect(last.stage).toMatch(/^failed: debootstrap (failed|could not start)/)
    expect(last.percent).toBeUndefined()
    // debootstrap names its steps out of order; the bar never goes back.
    const percents = events.flatMap((e) => (e.percent === undefined ? [] : [e.percent]))
    expect(percents).toEqual([...percents].sort((a, b) => a - b))
    await images.idle()
    expect((await images.images()).images.some((i) => i.tags.includes(`airlock/bash:${tag}-fail`))).toBe(false)
    events.length = 0
    await expect(images.provision('go', { offline: true })).resolves.toEqual({ started: true })
    expect((await ended(events)).image).toBe(`airlock/go:${tag}-fail`)
    await images.idle()
  }, 180_000)

  it('refuses a language it has no image for, naming the known ones', async () => {
    const images = new ImageProvisioning({ engine: dockerImageEngine(docker), workDir: join(dir.path, 'images'), onProgress: () => undefined })
    await expect(images.provision('cobol')).rejects.toMatchObject({
      code: 'providers.unknown_language',
      message: expect.stringContaining('python, nodejs, bash, go, cpp')
    })
    await expect(images.provision('constructor')).rejects.toMatchObject({ code: 'providers.unknown_language' })
  })
})

describe('image provisioning without an engine', () => {
  it('says the engine is unreachable and why, and starts nothing (a second call is not "busy")', async () => {
    const dir = makeTempDir('airlock-images-')
    try {
      const events: ImageProgress[] = []
      const images = new ImageProvisioning({
        engine: dockerImageEngine(createDockerClient({ socketPath: join(dir.path, 'no-engine.sock') })),
        workDir: dir.path,
        onProgress: (p) => events.push(p)
      })
      expect(await images.images()).toMatchObject({
        engine: { ok: false, reason: expect.stringContaining('not reachable') },
        images: [],
        languages: expect.arrayContaining(['python'])
      })
      await expect(images.provision('python', { offline: true })).rejects.toMatchObject({ code: 'providers.engine_unavailable' })
      await expect(images.provision('python', { offline: true })).rejects.toMatchObject({ code: 'providers.engine_unavailable' })
      expect(events).toEqual([])
    } finally {
      dir.remove()
    }
  })
})
