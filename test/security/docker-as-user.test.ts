// The docker provider when Airlock runs as an ordinary user (TESTING.md: what depends on the uid is
// tested as root and as a non-root user). A vitest fixture runs under setpriv as uid 65534 with
// the docker group: code must run as that uid (not root, not the image's user), write the
// workspace that uid owns, and leave nothing running after the call.
import { spawnSync } from 'node:child_process'
import { chownSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import { makeTempDir } from '../support/temp-home'
import { checkEngine, createDockerClient } from '../../src/main/providers/docker/docker-engine'

const repoRoot = join(__dirname, '..', '..')
const docker = createDockerClient()
const engine = await checkEngine(docker)
const dockerGroup = /^docker:x:(\d+):/m.exec(spawnSync('getent', ['group', 'docker'], { encoding: 'utf8' }).stdout ?? '')?.[1]
const asRoot = process.getuid?.() === 0
const skip =
  skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason }) ??
  (asRoot && dockerGroup ? undefined : 'needs root (to switch to uid 65534) and a docker group for the socket')

describe.skipIf(skip !== undefined)(`docker provider as a non-root user${skip ? ` (skipped: ${skip})` : ''}`, () => {
  // Under /tmp: every ancestor must be readable by that user (the no-follow walk opens each one).
  const dir = makeTempDir('airlock-docker-user-')
  afterAll(() => dir.remove())

  it("code runs as the operator's own uid, writes the workspace that uid owns, and leaves no process behind", async () => {
    await ensureTestImages(docker)
    chownSync(dir.path, 65534, 65534)
    const child = spawnSync(
      'setpriv',
      [
        '--reuid=65534',
        '--regid=65534',
        `--groups=${dockerGroup}`,
        join(repoRoot, 'node_modules/.bin/vitest'),
        'run',
        '--config',
        'test/security/fixtures/vitest.fixtures.config.ts',
        'docker-as-user'
      ],
      { cwd: repoRoot, env: { ...process.env, HOME: dir.path, AIRLOCK_FIXTURE_DIR: dir.path }, encoding: 'utf8', timeout: 120_000 }
    )
    const marker = 'AIRLOCK_FIXTURE_RESULT '
    const line = child.stdout.split('\n').find((l) => l.includes(marker))
    expect(line, child.stdout + child.stderr).toBeDefined()
    const report = JSON.parse(line!.slice(line!.indexOf(marker) + marker.length))
    expect(report.identity).toEqual({ uid: 65534, gid: 65534, dedicated: false })
    expect(report.result).toMatchObject({ exitCode: 0, stdout: '65534\n65534\nstarted\n' })
    expect(report.fileUid).toBe(65534)
    // Only the container's init and its sleep, under their own uid (65533 when the run user is 65534).
    expect(report.processes).toEqual(['65533 /sbin/docker-init -- sleep infinity', '65533 sleep infinity'])
  }, 180_000)
})
