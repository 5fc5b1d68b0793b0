import { closeSync, mkdirSync, openSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../../test/support/temp-home'
import { createCodeBundle } from './code-bundle'
import { TaskWorkspaceGrant } from './task-workspace'

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => (dir = makeTempDir()))
afterEach(() => dir.remove())

const bundle = () =>
  createCodeBundle({ language: 'python', files: [{ path: 'pkg/main.py', content: 'print(1)' }], entrypoint: 'pkg/main.py', expectedOutputs: ['output/a.txt'] })

describe('TaskWorkspace grants', () => {
  it('materialises the bundle once into a new execution area with the spec layout', () => {
    const grant = new TaskWorkspaceGrant(dir.path, 'call-1', 'snapshot')
    grant.materialise(bundle())
    expect(grant.area.root).toBe(join(dir.path, '.airlock', 'executions', 'call-1'))
    expect(readFileSync(join(grant.area.source, 'pkg/main.py'), 'utf8')).toBe('print(1)')
    expect(() => grant.materialise(bundle())).toThrow(/already materialised/)
    expect(() => new TaskWorkspaceGrant(dir.path, 'call-1', 'snapshot').materialise(bundle())).toThrow(/already exists/)
  })

  it('collects declared regular files once; missing ones and symlinks fail with expected_output_missing', () => {
    const grant = new TaskWorkspaceGrant(dir.path, 'call-2', 'snapshot')
    grant.materialise(bundle())
    writeFileSync(join(grant.area.output, 'a.txt'), 'result')
    writeFileSync(join(grant.area.output, 'undeclared.txt'), 'ignored')
    expect(grant.collect(['output/a.txt'])).toEqual([expect.objectContaining({ path: 'output/a.txt', bytes: 6 })])
    expect(() => grant.collect(['output/a.txt'])).toThrow(/already collected/)

    const other = new TaskWorkspaceGrant(dir.path, 'call-3', 'snapshot')
    other.materialise(bundle())
    writeFileSync(join(dir.path, 'secret.txt'), 'host secret')
    symlinkSync(join(dir.path, 'secret.txt'), join(other.area.output, 'a.txt'))
    mkdirSync(join(other.area.output, 'dir.txt'))
    let caught: { code?: string; missing?: string[] } = {}
    try {
      other.collect(['output/a.txt', 'output/b.txt', 'output/dir.txt'])
    } catch (error) {
      caught = error as typeof caught
    }
    expect(caught.code).toBe('expected_output_missing')
    expect(caught.missing).toEqual(['output/a.txt (not a regular file)', 'output/b.txt', 'output/dir.txt (not a regular file)'])
  })

  it('caps collected outputs like bundles: a sparse file past the cap is not read', () => {
    const grant = new TaskWorkspaceGrant(dir.path, 'call-5', 'snapshot')
    grant.materialise(bundle())
    // 512 MiB that cost the program nothing (sparse): the host must not read it.
    closeSync(openSync(join(grant.area.output, 'big'), 'w'))
    truncateSync(join(grant.area.output, 'big'), 512 * 1024 * 1024)
    writeFileSync(join(grant.area.output, 'small'), 'ok')
    expect(() => grant.collect(['output/big', 'output/small'])).toThrow(/output\/big \(larger than 16777216 bytes/)
  })

  it('a closed grant is unusable', () => {
    const grant = new TaskWorkspaceGrant(dir.path, 'call-4', 'read_only')
    grant.close()
    expect(() => grant.materialise(bundle())).toThrow(/closed/)
    expect(() => grant.collect([])).toThrow(/closed/)
    expect(() => grant.close()).toThrow(/already closed/)
  })

  it('refuses action call ids that would escape the executions folder', () => {
    expect(() => new TaskWorkspaceGrant(dir.path, '../x', 'snapshot')).toThrow(/invalid action call id/)
    expect(() => new TaskWorkspaceGrant(dir.path, '..', 'snapshot')).toThrow(/invalid action call id/)
  })
})
