import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { ExecutionResourceManager, createExecution } from '../src/main/core'
import { makeTempDir } from '../test/support/temp-home'
import { ScratchDirectoryProvider, type ScratchDirectory } from './scratch-directory-provider'

const dirs: ReturnType<typeof makeTempDir>[] = []
afterEach(() => dirs.splice(0).forEach((d) => d.remove()))

describe('example provider: scratch_directory', () => {
  it('creates a real directory, reuses it while it exists, and removes it on release', async () => {
    const parent = makeTempDir()
    dirs.push(parent)
    const manager = new ExecutionResourceManager().registerProvider(new ScratchDirectoryProvider())
    const requirement = manager.declare({ kind: 'scratch_directory', scope: 'session', ownerId: 's1', config: { parent: parent.path, prefix: 'demo' } })
    const handle = await manager.ensure(requirement.requirementId)
    const { path } = handle.resource as ScratchDirectory
    expect(existsSync(path)).toBe(true)
    writeFileSync(`${path}/notes.txt`, 'hello')
    expect((await manager.ensure(requirement.requirementId)).handleId).toBe(handle.handleId)
    await manager.releaseScope('session', 's1')
    expect(existsSync(path)).toBe(false)
  })

  it('replaces a directory that vanished (unhealthy) with a fresh one', async () => {
    const manager = new ExecutionResourceManager().registerProvider(new ScratchDirectoryProvider())
    const first = await manager.ensure({ kind: 'scratch_directory', reuseKey: 'k' })
    rmSync((first.resource as ScratchDirectory).path, { recursive: true })
    const second = await manager.ensure({ kind: 'scratch_directory', reuseKey: 'k' })
    expect(second.handleId).not.toBe(first.handleId)
    expect(manager.list().map((h) => h.handleId)).toEqual([second.handleId])
    await manager.releaseAll()
    expect(existsSync((second.resource as ScratchDirectory).path)).toBe(false)
  })

  it('is unavailable, with the reason, for a parent that does not exist or bad config', async () => {
    const manager = new ExecutionResourceManager().registerProvider(new ScratchDirectoryProvider())
    await expect(manager.ensure({ kind: 'scratch_directory', config: { parent: '/nonexistent/place' } })).rejects.toThrow(/does not exist/)
    await expect(manager.ensure({ kind: 'scratch_directory', config: { prefix: '../escape' } })).rejects.toThrow(/invalid config: prefix/)
  })

  it('works in a flow: the execution owns the directory and close removes it', async () => {
    const manager = new ExecutionResourceManager().registerProvider(new ScratchDirectoryProvider())
    const flow = createExecution({ manager, executionResources: { scratch: { kind: 'scratch_directory' } } })
    flow.start()
    const scratch = await flow.requireResource<ScratchDirectory>('scratch')
    expect(existsSync(scratch.path)).toBe(true)
    await flow.close()
    expect(existsSync(scratch.path)).toBe(false)
  })
})
