import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ActionResult } from '../../src/main/core'
import { dataOf, fileActionHarness } from '../actions/file-action-harness'
import { cases, otherSecret, outsideSecret, type StageStep } from './workspace-path-cases'

let h: ReturnType<typeof fileActionHarness>

beforeEach(() => {
  h = fileActionHarness()
  writeFileSync(join(h.outside, 'secret.txt'), `${outsideSecret}\n`)
  writeFileSync(join(h.outside, 'target.txt'), 'target: must never change\n')
  writeFileSync(join(h.other, 'secret.txt'), `${otherSecret}\n`)
})

afterEach(() => h.remove())

const fill = (text: string) => text.replaceAll('{ws}', h.workspace).replaceAll('{outside}', h.outside).replaceAll('{other}', h.other)
const place = (path: string) => (path.startsWith('{') ? fill(path) : h.at(path))

function stage(steps: StageStep[] = []): void {
  for (const step of steps) {
    if ('dir' in step) mkdirSync(place(step.dir), { recursive: true })
    else if ('file' in step) writeFileSync(place(step.file), step.content)
    else if ('symlink' in step) symlinkSync(fill(step.to), place(step.symlink))
    else if ('hardlink' in step) linkSync(place(step.to), place(step.hardlink))
    else execFileSync('mkfifo', [place(step.fifo)])
  }
}

/** Everything outside the agent's workspace that a case could touch: names, kinds, inodes, modes, owners, contents. */
function outsideState(): unknown {
  const walk = (dir: string): unknown[] =>
    readdirSync(dir)
      .sort()
      .map((name) => {
        const path = join(dir, name)
        const stat = lstatSync(path)
        const base = { name, ino: stat.ino, mode: stat.mode, uid: stat.uid, size: stat.size, mtimeMs: stat.mtimeMs }
        if (stat.isDirectory()) return { ...base, children: walk(path) }
        if (stat.isSymbolicLink()) return { ...base, to: readlinkSync(path) }
        return { ...base, content: readFileSync(path, 'utf8') }
      })
  return { home: readdirSync(h.home.path).sort(), workspaces: readdirSync(dirname(h.workspace)).sort(), outside: walk(h.outside), other: walk(h.other) }
}

function assertNoSecret(result: ActionResult): void {
  const text = JSON.stringify(result)
  expect(text).not.toContain(outsideSecret)
  expect(text).not.toContain(otherSecret)
}

describe('security corpus: the file actions never reach past the agent workspace', () => {
  it.each(cases.map((c) => [c.id, c] as const))('%s', async (_id, testCase) => {
    stage(testCase.stage)
    const before = outsideState()
    const input = Object.fromEntries(Object.entries(testCase.input).map(([key, value]) => [key, typeof value === 'string' ? fill(value) : value]))
    const started = performance.now()
    const result = await h.call(testCase.tool, input)
    // FIFOs and loops must be refused at once, not after a timeout.
    expect(performance.now() - started).toBeLessThan(5000)
    if (testCase.expect.status === 'success') expect(result.error).toBeUndefined()
    else {
      expect(result.status).toBe(testCase.expect.status)
      expect(result.error?.code).toBe(testCase.expect.code)
      if (testCase.expect.message) expect(result.error?.message).toMatch(testCase.expect.message)
    }
    assertNoSecret(result)
    expect(outsideState()).toEqual(before)
  })
})

/** Starts a process that keeps running `loop` in the workspace, as a sandboxed agent could; stops it afterwards. */
function attacker(loop: string): { stop(): Promise<void> } {
  // `hold()` keeps a state for about a millisecond, so each one overlaps some calls (a call takes a few).
  const script = `const fs = require('fs'); const attempt = (step) => { try { step() } catch {} }; const hold = () => { const end = performance.now() + 1; while (performance.now() < end); }; for (;;) { ${loop} }`
  const child: ChildProcess = spawn(process.execPath, ['-e', script], { cwd: h.workspace, stdio: 'ignore' })
  return {
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      })
  }
}

describe('security corpus: links swapped in between check and use', () => {
  it('a parent folder swapped for a link to outside, over and over, never lets a write or a read through', async () => {
    const before = outsideState()
    // rmSync removes a link itself (lstat), never what it points to.
    const swap = attacker(`
      attempt(() => fs.rmSync('d', { recursive: true, force: true }))
      attempt(() => fs.symlinkSync(${JSON.stringify(h.outside)}, 'd'))
      hold()
      attempt(() => fs.rmSync('d', { recursive: true, force: true }))
      attempt(() => { fs.mkdirSync('d'); fs.writeFileSync('d/secret.txt', 'inside') })
      hold()
    `)
    const outcomes = new Map<string, number>()
    try {
      for (let round = 0; round < 150; round++) {
        for (const [tool, input] of [
          ['write_file', { path: 'd/victim.txt', content: 'agent' }],
          ['write_file', { path: 'd/new/deeper.txt', content: 'agent' }],
          ['read_file', { path: 'd/secret.txt' }],
          ['list_directory', { path: 'd' }]
        ] as const) {
          const result = await h.call(tool, input)
          assertNoSecret(result)
          const key = result.ok ? 'ok' : (result.error?.code ?? result.status)
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
        }
      }
    } finally {
      await swap.stop()
    }
    expect(outsideState()).toEqual(before)
    // The race ran: some calls met the link (refused) and some the real folder (done inside).
    expect(outcomes.get('ok') ?? 0, JSON.stringify([...outcomes])).toBeGreaterThan(0)
    expect(outcomes.get('workspace_file.outside_workspace') ?? 0, JSON.stringify([...outcomes])).toBeGreaterThan(0)
  })

  it('a file swapped between a regular file, a symlink out and a hard link out never lets a write, an edit or a read through', async () => {
    stage([
      { file: 'f.file', content: 'agent\n' },
      { symlink: 'f.link', to: '{outside}/target.txt' },
      { hardlink: 'f.hard', to: '{outside}/secret.txt' }
    ])
    const target = lstatSync(join(h.outside, 'target.txt'))
    const outcomes = new Map<string, number>()
    // A write that lands replaces the link in its way (and the renames then shuffle it), so the links are planted again each turn.
    const swap = attacker(`
      attempt(() => fs.rmSync('f.link', { force: true }))
      attempt(() => fs.symlinkSync(${JSON.stringify(join(h.outside, 'target.txt'))}, 'f.link'))
      attempt(() => fs.rmSync('f.hard', { force: true }))
      attempt(() => fs.linkSync(${JSON.stringify(join(h.outside, 'secret.txt'))}, 'f.hard'))
      for (const state of ['f.file', 'f.link', 'f.hard']) {
        attempt(() => fs.renameSync(state, 'f'))
        hold()
        attempt(() => fs.renameSync('f', state))
      }
    `)
    try {
      for (let round = 0; round < 150; round++) {
        for (const [tool, input] of [
          ['write_file', { path: 'f', content: 'agent\n' }],
          ['edit_file', { path: 'f', oldText: 'agent', newText: 'agent' }],
          ['read_file', { path: 'f' }]
        ] as const) {
          const result = await h.call(tool, input)
          assertNoSecret(result)
          const key = result.ok ? 'ok' : (result.error?.code ?? result.status)
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
        }
      }
    } finally {
      await swap.stop()
    }
    const after = lstatSync(join(h.outside, 'target.txt'))
    expect({ ino: after.ino, size: after.size, mtimeMs: after.mtimeMs }).toEqual({ ino: target.ino, size: target.size, mtimeMs: target.mtimeMs })
    expect(readFileSync(join(h.outside, 'target.txt'), 'utf8')).toBe('target: must never change\n')
    expect(readFileSync(join(h.outside, 'secret.txt'), 'utf8')).toBe(`${outsideSecret}\n`)
    expect(readdirSync(h.outside).sort()).toEqual(['secret.txt', 'target.txt'])
    // The race ran: calls met the link out and the hard link, and some landed inside.
    expect(outcomes.get('ok') ?? 0, JSON.stringify([...outcomes])).toBeGreaterThan(0)
    expect(outcomes.get('workspace_file.outside_workspace') ?? 0, JSON.stringify([...outcomes])).toBeGreaterThan(0)
    expect(outcomes.get('workspace_file.hard_link') ?? 0, JSON.stringify([...outcomes])).toBeGreaterThan(0)
  })
})

describe('the positive paths, through the same dispatcher', () => {
  it('write, then read, edit, list and search the same files', async () => {
    dataOf(await h.call('write_file', { path: 'pkg/src/app.ts', content: 'export const greeting = "hello"\n' }))
    dataOf(await h.call('write_file', { path: 'pkg/.gitignore', content: 'dist/\n' }))
    dataOf(await h.call('write_file', { path: 'pkg/dist/app.js', content: 'const greeting = "hello"\n' }))
    expect(dataOf<{ content: string }>(await h.call('read_file', { path: 'pkg/src/app.ts' })).content).toBe('export const greeting = "hello"\n')
    const edit = dataOf<{ diff: string; replacements: number }>(await h.call('edit_file', { path: 'pkg/src/app.ts', oldText: '"hello"', newText: '"hi"' }))
    expect(edit.replacements).toBe(1)
    expect(edit.diff).toContain('-export const greeting = "hello"\n+export const greeting = "hi"')
    const listing = dataOf<{ entries: { name: string }[] }>(await h.call('list_directory', { path: 'pkg', recursive: true }))
    expect(listing.entries.map((entry) => entry.name)).toEqual(['.gitignore', 'dist', 'src', 'dist/app.js', 'src/app.ts'])
    const search = dataOf<{ matches: unknown[] }>(await h.call('search_files', { pattern: 'greeting', glob: '*.ts' }))
    expect(search.matches).toEqual([{ file: 'pkg/src/app.ts', line: 1, text: 'export const greeting = "hi"' }])
  })

  it('leaves no descriptor open, whether a call succeeds or is refused', async () => {
    stage([
      { dir: 'src' },
      { file: 'src/a.ts', content: 'x\n' },
      { symlink: 'escape', to: '{outside}' },
      { hardlink: 'hl', to: '{outside}/secret.txt' },
      { fifo: 'pipe' }
    ])
    const calls: [string, Record<string, unknown>][] = [
      ['write_file', { path: 'src/b.ts', content: 'y\n' }],
      ['write_file', { path: 'escape/x', content: 'x' }],
      ['read_file', { path: 'src/a.ts' }],
      ['read_file', { path: 'hl' }],
      ['read_file', { path: 'pipe' }],
      ['edit_file', { path: 'src/a.ts', oldText: 'x', newText: 'x' }],
      ['edit_file', { path: 'src/a.ts', oldText: 'nope', newText: 'x' }],
      ['list_directory', { path: '.', recursive: true }],
      ['list_directory', { path: 'escape' }],
      ['search_files', { pattern: 'x' }],
      ['search_files', { pattern: 'x', path: 'escape' }]
    ]
    const open = () => readdirSync('/proc/self/fd').length
    for (const [tool, input] of calls) await h.call(tool, input)
    const before = open()
    for (let round = 0; round < 3; round++) for (const [tool, input] of calls) await h.call(tool, input)
    expect(open()).toBe(before)
  })
})
