import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sandboxIdentity } from '../../core/sandbox'
import { dataOf, fileActionHarness } from '../../../../test/actions/file-action-harness'
import type { WriteFileData } from '.'

let h: ReturnType<typeof fileActionHarness>

beforeEach(() => {
  h = fileActionHarness()
})

afterEach(() => h.remove())

describe('write_file', () => {
  it('creates the file and its folders, owned by the sandbox identity, and reports the bytes', async () => {
    const result = await h.call('write_file', { path: 'src/lib/util.ts', content: 'export const x = "é"\n' })
    expect(dataOf<WriteFileData>(result)).toEqual({ path: 'src/lib/util.ts', bytes: 22 })
    expect(readFileSync(h.at('src/lib/util.ts'), 'utf8')).toBe('export const x = "é"\n')
    const identity = sandboxIdentity()
    for (const made of ['src', 'src/lib', 'src/lib/util.ts']) {
      expect(statSync(h.at(made)).uid, made).toBe(identity.uid)
      expect(statSync(h.at(made)).gid, made).toBe(identity.gid)
    }
    expect(statSync(h.at('src/lib/util.ts')).mode & 0o777).toBe(0o644)
  })

  it('replaces an existing file atomically, keeping its permission bits and leaving no temporary file', async () => {
    writeFileSync(h.at('run.sh'), 'echo old\n')
    chmodSync(h.at('run.sh'), 0o755)
    const before = statSync(h.at('run.sh')).ino
    dataOf(await h.call('write_file', { path: './run.sh', content: 'echo new\n' }))
    expect(readFileSync(h.at('run.sh'), 'utf8')).toBe('echo new\n')
    expect(statSync(h.at('run.sh')).mode & 0o777).toBe(0o755)
    expect(statSync(h.at('run.sh')).ino).not.toBe(before)
    expect(readdirSync(h.workspace).filter((name) => name.startsWith('.airlock-write-'))).toEqual([])
  })

  it('writes an empty file', async () => {
    expect(dataOf<WriteFileData>(await h.call('write_file', { path: 'empty.txt', content: '' }))).toEqual({ path: 'empty.txt', bytes: 0 })
    expect(readFileSync(h.at('empty.txt'), 'utf8')).toBe('')
  })

  it('writes through a link that stays inside the workspace to its target, keeping the link', async () => {
    mkdirSync(h.at('real'))
    symlinkSync('real', h.at('alias'))
    symlinkSync('real/target.txt', h.at('file-link'))
    const result = await h.call('write_file', { path: 'alias/a.txt', content: 'a' })
    expect(result.ok).toBe(true)
    expect(readFileSync(h.at('real/a.txt'), 'utf8')).toBe('a')
    const viaLink = await h.call('write_file', { path: 'file-link', content: 'b' })
    expect(viaLink.diagnostics.join()).toMatch(/written to real\/target\.txt/)
    expect(lstatSync(h.at('file-link')).isSymbolicLink()).toBe(true)
    expect(readFileSync(h.at('real/target.txt'), 'utf8')).toBe('b')
  })

  it('refuses a folder as the target, and a path that ends with /', async () => {
    mkdirSync(h.at('dir'))
    expect((await h.call('write_file', { path: 'dir', content: 'x' })).error?.code).toBe('workspace_file.is_directory')
    const slash = await h.call('write_file', { path: 'dir/', content: 'x' })
    expect(slash.error).toMatchObject({ code: 'invalid_input' })
    expect(slash.error?.message).toMatch(/path: ends with \//)
  })

  it('refuses .exec_history and .airlock/, creating nothing', async () => {
    const history = await h.call('write_file', { path: '.exec_history', content: 'forged\n' })
    expect(history).toMatchObject({ status: 'blocked', error: { code: 'workspace_file.reserved_path' } })
    expect(existsSync(h.at('.exec_history'))).toBe(false)
    const area = await h.call('write_file', { path: '.airlock/executions/x/source/main.py', content: 'x' })
    expect(area).toMatchObject({
      status: 'blocked',
      error: { code: 'workspace_file.reserved_path' },
      meta: { policy: { decision: 'deny', rule: 'workspace.reserved_path' } }
    })
    expect(existsSync(h.at('.airlock'))).toBe(false)
  })

  it('refuses content over 16 MiB with an error naming the field', async () => {
    const result = await h.call('write_file', { path: 'big.txt', content: 'x'.repeat(16 * 1024 * 1024 + 1) })
    expect(result.error?.code).toBe('invalid_input')
    expect(result.error?.message).toMatch(/content: is 16777217 bytes; the limit is 16777216/)
    expect(existsSync(h.at('big.txt'))).toBe(false)
  })

  it('refuses a write that would take the workspace over its disk quota, leaving no folder behind', async () => {
    const small = fileActionHarness({ profile: { limits: { ...h.agent.profile.limits, diskMb: 1 } } })
    try {
      const result = await small.call('write_file', { path: 'new/dir/big.txt', content: 'x'.repeat(1024 * 1024 + 1) })
      expect(result).toMatchObject({ status: 'blocked', error: { code: 'workspace_file.quota_exceeded' } })
      expect(result.error?.message).toMatch(/of its 1 MiB disk quota/)
      expect(readdirSync(small.workspace)).toEqual([])
      expect((await small.call('write_file', { path: 'ok.txt', content: 'x'.repeat(1000) })).ok).toBe(true)
    } finally {
      small.remove()
    }
  })
})
