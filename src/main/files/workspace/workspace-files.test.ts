import { closeSync, linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { claimWorkspace } from '../../core/sandbox'
import { makeTempDir } from '../../../../test/support/temp-home'
import {
  assertWithinQuota,
  closeWorkspace,
  maxLinkHops,
  openWorkspace,
  pathProblem,
  resolveEntry,
  workspaceUsage,
  WorkspaceFileError,
  type WorkspaceRoot
} from '.'

let dir: ReturnType<typeof makeTempDir>
let workspace: string
let root: WorkspaceRoot

beforeEach(() => {
  dir = makeTempDir('airlock-ws-files-', { outsideTmp: true })
  workspace = join(dir.path, 'ws')
  claimWorkspace(workspace)
  mkdirSync(join(dir.path, 'outside'))
  root = openWorkspace(workspace)
})

afterEach(() => {
  closeWorkspace(root)
  dir.remove()
})

/** Where a path resolves (its real components), or the reason it is refused. */
function resolved(path: string): string {
  try {
    const entry = resolveEntry(root, path.split('/').filter(Boolean), { parents: 'require' })
    closeSync(entry.dirFd)
    return entry.components.join('/') || '.'
  } catch (error) {
    if (error instanceof WorkspaceFileError) return error.code
    throw error
  }
}

describe('pathProblem', () => {
  it.each([
    ['a/b.txt', 'file', undefined],
    ['./a//b.txt', 'file', undefined],
    ['.', 'directory', undefined],
    ['.', 'file', /names a folder|must name a file/],
    ['', 'file', /must name a file/],
    ['a/', 'file', /ends with \//],
    ['/etc/passwd', 'file', /absolute/],
    ['a/../../b', 'file', /\.\./],
    ['..', 'directory', /\.\./],
    ['a\u0000b', 'file', /NUL/],
    ['a\\b', 'file', /backslash/],
    ['bad\uD800name', 'file', /lone surrogate/],
    ['x'.repeat(256), 'file', /name of 256 bytes/],
    [`${'é'.repeat(128)}`, 'file', /name of 256 bytes/],
    [Array.from({ length: 20 }, () => 'y'.repeat(250)).join('/'), 'file', /5019 bytes long; the limit is 4096/]
  ] as const)('%j as a %s operand', (path, operand, problem) => {
    const found = pathProblem(path, operand)
    if (problem === undefined) expect(found).toBeUndefined()
    else expect(found).toMatch(problem)
  })
})

describe('resolveEntry', () => {
  it('follows links that stay inside, relative, absolute and through .., as the kernel would', () => {
    mkdirSync(join(workspace, 'a/b'), { recursive: true })
    writeFileSync(join(workspace, 'a/b/f.txt'), 'f')
    symlinkSync('b', join(workspace, 'a/to-b'))
    symlinkSync('../a/b', join(workspace, 'a/up-and-back'))
    symlinkSync(join(workspace, 'a'), join(workspace, 'abs-a'))
    symlinkSync('a/to-b/f.txt', join(workspace, 'chain'))
    symlinkSync('a/b/../to-b', join(workspace, 'dotdot-after-dir'))
    expect(resolved('a/to-b/f.txt')).toBe('a/b/f.txt')
    expect(resolved('a/up-and-back/f.txt')).toBe('a/b/f.txt')
    expect(resolved('abs-a/b/f.txt')).toBe('a/b/f.txt')
    expect(resolved('chain')).toBe('a/b/f.txt')
    expect(resolved('dotdot-after-dir/f.txt')).toBe('a/b/f.txt')
    expect(resolved('a/b/missing.txt')).toBe('a/b/missing.txt')
  })

  it('refuses links that lead out, loops, and the host folder', () => {
    symlinkSync('..', join(workspace, 'parent'))
    symlinkSync(join(dir.path, 'outside'), join(workspace, 'out'))
    symlinkSync(`${workspace}-sibling`, join(workspace, 'prefix-trick'))
    symlinkSync('loop-b', join(workspace, 'loop-a'))
    symlinkSync('loop-a', join(workspace, 'loop-b'))
    symlinkSync('.airlock/executions', join(workspace, 'areas'))
    expect(resolved('parent/outside')).toBe('workspace_file.outside_workspace')
    expect(resolved('out/x')).toBe('workspace_file.outside_workspace')
    expect(resolved('prefix-trick/x')).toBe('workspace_file.outside_workspace')
    expect(resolved('loop-a')).toBe('workspace_file.symlink_loop')
    expect(resolved('areas/x')).toBe('workspace_file.reserved_path')
    expect(resolved('.airlock')).toBe('workspace_file.reserved_path')
  })

  it('allows a chain of exactly the most links, and refuses one more', () => {
    writeFileSync(join(workspace, 'end'), '')
    symlinkSync('end', join(workspace, 'l1'))
    for (let index = 2; index <= maxLinkHops + 1; index++) symlinkSync(`l${index - 1}`, join(workspace, `l${index}`))
    expect(resolved(`l${maxLinkHops}`)).toBe('end')
    expect(resolved(`l${maxLinkHops + 1}`)).toBe('workspace_file.symlink_loop')
  })
})

describe('workspace quota', () => {
  it('counts allocated blocks, each hard-linked inode once, and never follows a link out', async () => {
    writeFileSync(join(dir.path, 'outside', 'huge'), Buffer.alloc(4 * 1024 * 1024, 1))
    symlinkSync(join(dir.path, 'outside'), join(workspace, 'out'))
    const empty = await workspaceUsage(workspace)
    writeFileSync(join(workspace, 'one'), Buffer.alloc(256 * 1024, 1))
    linkSync(join(workspace, 'one'), join(workspace, 'two'))
    const usage = await workspaceUsage(workspace)
    expect(usage.complete).toBe(true)
    expect(usage.bytes - empty.bytes).toBeGreaterThanOrEqual(256 * 1024)
    expect(usage.bytes - empty.bytes).toBeLessThan(512 * 1024)
  })

  it('refuses growth past the limit, reports an already exceeded quota after the fact, and lets a shrinking write pass', async () => {
    writeFileSync(join(workspace, 'data'), Buffer.alloc(2 * 1024 * 1024, 1))
    await expect(assertWithinQuota(workspace, 4, 1024 * 1024)).resolves.toMatchObject({ complete: true })
    await expect(assertWithinQuota(workspace, 4, 3 * 1024 * 1024)).rejects.toMatchObject({ code: 'workspace_file.quota_exceeded' })
    await expect(assertWithinQuota(workspace, 1, 0)).rejects.toThrow(/uses 2\.\d MiB of its 1 MiB disk quota/)
    await expect(assertWithinQuota(workspace, 1, -100)).resolves.toBeUndefined()
  })
})
