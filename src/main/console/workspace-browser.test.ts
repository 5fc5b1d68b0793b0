import { execFileSync } from 'node:child_process'
import { AgentError } from './agent-errors'
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { workspaceListLimit, workspaceReadLimit } from '@shared/ipc/workspace'
import { makeTempDir } from '../../../test/support/temp-home'
import { WorkspaceBrowser } from './workspace-browser'

// The workspace browser over real files: what the operator sees in the tree, the viewer and the
// recent-changes list. The hostile cases (links out, swaps, FIFOs, devices) are in
// test/security/attack-workspace-browser.test.ts.

let dir: ReturnType<typeof makeTempDir>
let ws: string
let browser: WorkspaceBrowser
const at = (path: string) => join(ws, path)
const write = (path: string, content: string | Buffer, mtime?: Date) => {
  mkdirSync(join(at(path), '..'), { recursive: true })
  writeFileSync(at(path), content)
  if (mtime) utimesSync(at(path), mtime, mtime)
}

beforeEach(() => {
  dir = makeTempDir('airlock-browser-')
  ws = join(dir.path, 'workspaces', 'coder')
  mkdirSync(ws, { recursive: true })
  browser = new WorkspaceBrowser({
    workspaceOf: (agentId) => {
      if (agentId !== 'coder') throw new AgentError('agent.not_found', `There is no agent ${agentId}.`)
      return ws
    }
  })
})
afterEach(() => dir.remove())

describe('workspace.list', () => {
  it('lists folders first, then files by name, with kind, size and time; links are links', async () => {
    write('b.txt', 'hello')
    write('a.py', 'print(1)\n', new Date('2025-01-02T03:04:05.000Z'))
    mkdirSync(at('src'))
    mkdirSync(at('.git'))
    symlinkSync('a.py', at('z-link'))
    execFileSync('mkfifo', [at('pipe')])
    const listing = await browser.list('coder')
    expect(listing).toMatchObject({ path: '', truncated: false })
    expect(listing.entries.map((e) => [e.name, e.kind, e.bytes])).toEqual([
      ['.git', 'directory', 0],
      ['src', 'directory', 0],
      ['a.py', 'file', 9],
      ['b.txt', 'file', 5],
      ['pipe', 'other', 0],
      ['z-link', 'symlink', 0]
    ])
    expect(listing.entries.find((e) => e.name === 'a.py')).toMatchObject({ path: 'a.py', modifiedAt: '2025-01-02T03:04:05.000Z' })
  })

  it('lists a subfolder with paths relative to the workspace, whatever slashes and dots the path had', async () => {
    write('src/app/main.ts', 'x')
    for (const path of ['src/app', 'src//app/', './src/./app']) {
      expect(await browser.list('coder', path)).toEqual({
        path: 'src/app',
        truncated: false,
        entries: [expect.objectContaining({ name: 'main.ts', path: 'src/app/main.ts', kind: 'file' })]
      })
    }
  })

  it('cuts a folder with more entries than the limit and says so', async () => {
    mkdirSync(at('many'))
    for (let i = 0; i < workspaceListLimit + 5; i++) writeFileSync(at(`many/f${i}`), '')
    const listing = await browser.list('coder', 'many')
    expect(listing.truncated).toBe(true)
    expect(listing.entries).toHaveLength(workspaceListLimit)
  })

  it('names what is wrong with a path: missing, a file, an unknown agent', async () => {
    write('file.txt', 'x')
    await expect(browser.list('coder', 'nope')).rejects.toMatchObject({ code: 'workspace.not_found', message: 'nope does not exist.' })
    await expect(browser.list('coder', 'file.txt')).rejects.toMatchObject({ code: 'workspace.not_directory', message: 'file.txt is not a folder.' })
    await expect(browser.list('ghost')).rejects.toMatchObject({ code: 'agent.not_found' })
  })
})

describe('workspace.read', () => {
  it('shows a text file whole', async () => {
    write('notes/readme.md', '# Title\nünïcode ✓\n', new Date('2025-02-03T04:05:06.000Z'))
    expect(await browser.read('coder', 'notes/readme.md')).toEqual({
      path: 'notes/readme.md',
      bytes: Buffer.byteLength('# Title\nünïcode ✓\n'),
      modifiedAt: '2025-02-03T04:05:06.000Z',
      binary: false,
      text: '# Title\nünïcode ✓\n',
      truncated: false
    })
  })

  it('shows only the size of a binary file (NUL bytes or not UTF-8)', async () => {
    write('img.bin', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]))
    write('latin1.txt', Buffer.from('caf\xe9', 'latin1'))
    expect(await browser.read('coder', 'img.bin')).toMatchObject({ binary: true, text: null, bytes: 6, truncated: false })
    expect(await browser.read('coder', 'latin1.txt')).toMatchObject({ binary: true, text: null, bytes: 4 })
  })

  it('cuts a long file at the limit on a character boundary and says it was cut', async () => {
    // The limit falls inside the 3-byte "✓" that follows the ASCII run.
    const text = `${'a'.repeat(workspaceReadLimit - 1)}✓${'b'.repeat(100)}`
    write('long.txt', text)
    const file = await browser.read('coder', 'long.txt')
    expect(file).toMatchObject({ binary: false, truncated: true, bytes: Buffer.byteLength(text) })
    expect(file.text).toBe('a'.repeat(workspaceReadLimit - 1))
  })

  it('refuses a folder, the workspace itself and a missing file by name', async () => {
    mkdirSync(at('src'))
    await expect(browser.read('coder', 'src')).rejects.toMatchObject({ code: 'workspace.is_directory', message: 'src is a folder, not a file.' })
    await expect(browser.read('coder', '.')).rejects.toMatchObject({ code: 'workspace.is_directory' })
    await expect(browser.read('coder', 'src/missing.txt')).rejects.toMatchObject({ code: 'workspace.not_found', message: 'src/missing.txt does not exist.' })
  })
})

describe('workspace.recent', () => {
  it('lists the newest files first across the tree, without .git, the host records or links', async () => {
    const t = (minutes: number) => new Date(Date.UTC(2025, 0, 1, 12, minutes))
    write('old.txt', 'o', t(1))
    write('src/deep/newest.py', 'n', t(50))
    write('src/mid.ts', 'm', t(30))
    write('.git/index', 'g', t(59))
    write('.exec_history', '{}\n', t(59))
    write('.airlock/executions/1/source/main.py', 'x', t(59))
    symlinkSync('old.txt', at('new-link'))
    const recent = await browser.recent('coder', 10)
    expect(recent.complete).toBe(true)
    expect(recent.changes).toEqual([
      { path: 'src/deep/newest.py', bytes: 1, modifiedAt: t(50).toISOString() },
      { path: 'src/mid.ts', bytes: 1, modifiedAt: t(30).toISOString() },
      { path: 'old.txt', bytes: 1, modifiedAt: t(1).toISOString() }
    ])
    expect((await browser.recent('coder', 1)).changes.map((c) => c.path)).toEqual(['src/deep/newest.py'])
  })

  it('stops at its bounds and says it did not see everything', async () => {
    const bounded = new WorkspaceBrowser({ workspaceOf: () => ws, recentBounds: { maxEntries: 50, maxDepth: 3, maxMs: 2000 } })
    write('a/b/c/d/e/deep.txt', 'x')
    expect(await bounded.recent('coder', 10)).toMatchObject({ complete: false, changes: [] })
    mkdirSync(at('wide'))
    for (let i = 0; i < 80; i++) writeFileSync(at(`wide/f${i}`), '')
    const wide = await bounded.recent('coder', 200)
    expect(wide).toMatchObject({ complete: false, scanned: 50 })
  })
})
