import { execFileSync } from 'node:child_process'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { dataOf, fileActionHarness } from '../../../../test/actions/file-action-harness'
import { listBounds, type ListDirectoryData } from '.'

let h: ReturnType<typeof fileActionHarness>

beforeEach(() => {
  h = fileActionHarness()
  mkdirSync(h.at('src/lib'), { recursive: true })
  writeFileSync(h.at('src/main.ts'), 'main\n')
  writeFileSync(h.at('src/lib/util.ts'), 'util!\n')
  writeFileSync(h.at('README.md'), '# hi\n')
  symlinkSync('src', h.at('code'))
})

afterEach(() => h.remove())

describe('list_directory', () => {
  it('lists a folder with type and size, links reported and not followed', async () => {
    const data = dataOf<ListDirectoryData>(await h.call('list_directory', { path: '.' }))
    expect(data).toEqual({
      entries: [
        { name: 'README.md', type: 'file', size: 5 },
        { name: 'code', type: 'symlink', size: 0 },
        { name: 'src', type: 'directory', size: 0 }
      ],
      truncated: false
    })
  })

  it('lists recursively, breadth first, with paths relative to the listed folder', async () => {
    const data = dataOf<ListDirectoryData>(await h.call('list_directory', { path: 'src', recursive: true }))
    expect(data.entries).toEqual([
      { name: 'lib', type: 'directory', size: 0 },
      { name: 'main.ts', type: 'file', size: 5 },
      { name: 'lib/util.ts', type: 'file', size: 6 }
    ])
  })

  it('lists a folder named through a link inside the workspace', async () => {
    const data = dataOf<ListDirectoryData>(await h.call('list_directory', { path: 'code/lib' }))
    expect(data.entries).toEqual([{ name: 'util.ts', type: 'file', size: 6 }])
  })

  it('hides the host-kept .airlock/ and does not descend into .git', async () => {
    mkdirSync(h.at('.airlock/executions'), { recursive: true })
    mkdirSync(h.at('.git/objects'), { recursive: true })
    const names = dataOf<ListDirectoryData>(await h.call('list_directory', { path: '.', recursive: true })).entries.map((entry) => entry.name)
    expect(names).not.toContain('.airlock')
    expect(names).toContain('.git')
    expect(names).not.toContain('.git/objects')
    expect((await h.call('list_directory', { path: '.airlock' })).error?.code).toBe('workspace_file.reserved_path')
  })

  it('reports FIFOs as other and names that are not UTF-8 with U+FFFD, without hanging', async () => {
    execFileSync('mkfifo', [h.at('pipe')])
    writeFileSync(Buffer.concat([Buffer.from(`${h.workspace}/bad-`), Buffer.from([0xff]), Buffer.from('.txt')]), '')
    const result = await h.call('list_directory', { path: '.' })
    const entries = dataOf<ListDirectoryData>(result).entries
    expect(entries).toContainEqual({ name: 'pipe', type: 'other', size: 0 })
    expect(entries.some((entry) => entry.name === 'bad-\uFFFD.txt')).toBe(true)
    expect(result.diagnostics.join()).toMatch(/not UTF-8/)
  })

  it('cuts a listing at its bound and says truncated', async () => {
    const many = h.at('many')
    mkdirSync(many)
    for (let index = 0; index < listBounds.maxEntries + 5; index++) writeFileSync(join(many, `f${index}`), '')
    const result = await h.call('list_directory', { path: 'many' })
    const data = dataOf<ListDirectoryData>(result)
    expect(data.entries).toHaveLength(listBounds.maxEntries)
    expect(data.truncated).toBe(true)
    expect(result.diagnostics.join()).toMatch(/cut at 2000 entries/)
  })

  it('refuses a file, a missing folder and a path with .. or an absolute path', async () => {
    expect((await h.call('list_directory', { path: 'README.md' })).error?.code).toBe('workspace_file.not_directory')
    expect((await h.call('list_directory', { path: 'nope' })).error?.code).toBe('workspace_file.not_found')
    expect((await h.call('list_directory', { path: '..' })).error?.message).toMatch(/path: must not contain \.\./)
    expect((await h.call('list_directory', { path: '/etc' })).error?.message).toMatch(/path: must be relative/)
  })
})
