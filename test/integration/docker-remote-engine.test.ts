import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxIdentity } from '../../src/main/core'
import { createHost, type Host } from '../../src/main/host'
import { checkEngine, createDockerClient, homeLabel, labels } from '../../src/main/providers/docker/docker-engine'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import { copyImage, startSecondEngine, type SecondEngine } from '../support/second-engine'
import { makeTempDir } from '../support/temp-home'

// Issue 13, "Remote Docker engine": execution moves to another machine's engine. A second dockerd
// started here (its own data root, loopback TCP, TLS certificates made by the test) stands in for
// the build server; Airlock reaches it only through DOCKER_HOST / DOCKER_TLS_VERIFY /
// DOCKER_CERT_PATH, as the README tells an operator. Nothing is bound from this host: the code
// bundle goes in and the outputs come back over the archive API.

const local = createDockerClient()
const engine = await checkEngine(local)
const skip = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })
const envNames = ['DOCKER_HOST', 'DOCKER_TLS_VERIFY', 'DOCKER_CERT_PATH'] as const

describe.skipIf(skip !== undefined)(`a remote Docker engine over TCP with TLS${skip ? ` (skipped: ${skip})` : ''}`, { timeout: 240_000 }, () => {
  let dir: ReturnType<typeof makeTempDir>
  let remote: SecondEngine
  let host: Host
  let sessionId: string
  const saved: Partial<Record<(typeof envNames)[number], string>> = {}
  const call = (tool: string, input: unknown) => host.agents.sessions.execute({ sessionId, tool, input })
  /** Containers of this test's Airlock home on an engine. */
  const containersOn = (docker: typeof local) =>
    docker.listContainers({ all: true, filters: { label: [`${labels.managed}=true`, `${labels.home}=${homeLabel(join(dir.path, 'home'))}`] } })

  beforeAll(async () => {
    await ensureTestImages(local)
    dir = makeTempDir('airlock-remote-', { outsideTmp: true })
    remote = await startSecondEngine(join(dir.path, 'engine'), (await local.info()).Driver)
    await copyImage(local, remote.docker, 'airlock/python:latest')
    for (const name of envNames) saved[name] = process.env[name]
    Object.assign(process.env, { DOCKER_HOST: remote.host, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: remote.certPath })
    host = createHost({ home: join(dir.path, 'home'), logError: () => undefined })
    await host.recovered
    host.agents.service.create('builder', { profile: { capabilities: ['files', 'shell', 'python'], providers: ['docker'] } })
    sessionId = host.agents.sessions.start('builder', 'test').sessionId
  }, 600_000)

  afterAll(async () => {
    await host?.dispose()
    for (const name of envNames) {
      if (saved[name] === undefined) delete process.env[name]
      else process.env[name] = saved[name]
    }
    await remote?.stop()
    dir?.remove()
  })

  it('runs code on the remote engine: the bundle goes in, the output comes back, nothing is bound', async () => {
    writeFileSync(join(host.agents.service.workspaceOf('builder'), 'notes.txt'), 'on the host only')
    const seen: Array<{ binds: unknown; mounts: Array<{ Type: string }> }> = []
    const watcher = setInterval(() => {
      void containersOn(remote.docker).then(async (list) => {
        for (const c of list) {
          const inspected = await remote.docker
            .getContainer(c.Id)
            .inspect()
            .catch(() => undefined)
          if (inspected) seen.push({ binds: inspected.HostConfig.Binds, mounts: inspected.Mounts as Array<{ Type: string }> })
        }
      })
    }, 100)
    let result
    try {
      result = await call('run_code', {
        language: 'python',
        sourceCode: [
          'import os, time',
          "notes = os.path.exists(os.path.join(os.environ['AIRLOCK_OUTPUT_DIR'], '..', '..', '..', '..', 'notes.txt'))",
          "open(os.path.join(os.environ['AIRLOCK_OUTPUT_DIR'], 'report.txt'), 'w').write('made remotely')",
          "os.makedirs(os.path.join(os.environ['AIRLOCK_OUTPUT_DIR'], 'deep', 'er'))",
          "open(os.path.join(os.environ['AIRLOCK_OUTPUT_DIR'], 'deep', 'er', 'x.bin'), 'wb').write(bytes(range(256)) * 4096)",
          "os.symlink('/etc/passwd', os.path.join(os.environ['AIRLOCK_OUTPUT_DIR'], 'link'))",
          'time.sleep(1)',
          "print('uid', os.getuid(), 'sees host notes', notes)"
        ].join('\n'),
        expectedOutputs: ['output/report.txt', 'output/deep/er/x.bin']
      })
    } finally {
      clearInterval(watcher)
    }
    expect(result).toMatchObject({ ok: true, status: 'success', data: { exitCode: 0, stdout: `uid ${sandboxIdentity().uid} sees host notes False\n` } })
    // One entry was a link: not copied back, and the run says so.
    expect((result.data as { stderr: string }).stderr).toContain('1 entry of the execution area (links, devices) were not copied back')
    const report = result.artifacts.find((artifact) => artifact.path.endsWith('report.txt'))!
    expect(readFileSync(report.path, 'utf8')).toBe('made remotely')
    expect(statSync(report.path).uid).toBe(sandboxIdentity().uid)
    const big = result.artifacts.find((artifact) => artifact.path.endsWith('x.bin'))!
    expect(statSync(big.path).size).toBe(256 * 4096)
    expect(existsSync(join(report.path, '..', 'link'))).toBe(false)

    // It ran there and only there, in a container with volumes and no bind of any host path.
    expect(seen.length).toBeGreaterThan(0)
    for (const container of seen) {
      expect(container.binds ?? []).toEqual([])
      expect(container.mounts.length).toBeGreaterThan(0)
      expect(container.mounts.every((mount) => mount.Type === 'volume')).toBe(true)
    }
    expect(await containersOn(local)).toEqual([])
  })

  it('refuses a shell session on the remote engine with the reason (the workspace is not there)', async () => {
    const result = await call('run_command', { command: 'echo hi' })
    expect(result.ok).toBe(false)
    expect(JSON.stringify(result.error)).toMatch(/remote/)
  })

  it('leaves nothing on the remote engine once the session ends', async () => {
    await host.agents.sessions.end(sessionId)
    await expect.poll(async () => (await containersOn(remote.docker)).length, { timeout: 20_000 }).toBe(0)
    const volumes = await remote.docker.listVolumes()
    expect(volumes.Volumes ?? []).toEqual([])
  })
})
