import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { skipReasonFor } from '../../../../test/support/components'
import { makeTempDir } from '../../../../test/support/temp-home'
import { claimWorkspace, ExecutionResourceManager, sandboxIdentity, type ProgramRunner } from '../../core'
import { checkEngine, createDockerClient } from './docker-engine'
import { DockerProvider } from './docker-provider'
import { imageFormat, imageFormatLabel, provisionImages } from './offline-provisioning'

const docker = createDockerClient()
const engine = await checkEngine(docker)
const skip = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })

// TESTING.md "First run": CI keeps images between runs, so a cached image once hid that every
// freshly provisioned image was unusable (its `/` kept the 0700 of the scratch directory). This
// builds what a new machine builds, into a tag nobody has, every run (the slow test: ~1-4 min).
describe.skipIf(skip !== undefined)(`offline provisioning on a machine without the image${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('debootstraps python into a fresh tag, checks it as the sandbox uid, and the provider runs code in it', async () => {
    const tag = `first-run-${randomUUID().slice(0, 8)}`
    const image = `airlock/python:${tag}`
    const dir = makeTempDir('airlock-first-run-', { outsideTmp: true })
    const stages: string[] = []
    const manager = new ExecutionResourceManager().registerProvider(new DockerProvider({ home: dir.path, docker }))
    try {
      const tags = await provisionImages({
        docker,
        languages: ['python'],
        workDir: join(dir.path, 'images'),
        tag,
        onProgress: ({ stage }) => stages.push(stage)
      })
      expect(tags).toEqual([image])
      expect(stages).toEqual(expect.arrayContaining(['importing into the engine', 'checking the toolchains as the sandbox user', 'done']))
      expect((await docker.getImage(image).inspect()).Config.Labels?.[imageFormatLabel]).toBe(imageFormat)

      const workspace = join(dir.path, 'workspace')
      claimWorkspace(workspace)
      const handle = await manager.ensure({
        kind: 'code_execution',
        providerId: 'docker',
        config: { image },
        policy: { workspaceRoots: [workspace], timeoutSeconds: 30 }
      })
      const result = await (handle.resource as ProgramRunner).exec({ argv: ['python3', '-c', 'import os; print(1, os.getuid())'] })
      expect(result).toMatchObject({ exitCode: 0, stdout: `1 ${sandboxIdentity().uid}\n` })
    } finally {
      await manager.releaseAll()
      await docker
        .getImage(image)
        .remove({ force: true })
        .catch(() => undefined)
      dir.remove()
    }
  }, 900_000)
})
