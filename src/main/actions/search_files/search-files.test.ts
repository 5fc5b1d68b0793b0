import { execFileSync } from 'node:child_process'
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { dataOf, fileActionHarness, fileActions } from '../../../../test/actions/file-action-harness'
import { createSearchFilesAction, searchBounds, type SearchFilesData } from '.'

let h: ReturnType<typeof fileActionHarness>

function tree(files: Record<string, string | Buffer>) {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(h.at(path.split('/').slice(0, -1).join('/') || '.'), { recursive: true })
    writeFileSync(h.at(path), content)
  }
}

const found = (data: SearchFilesData) => data.matches.map((match) => `${match.file}:${match.line}: ${match.text}`)

beforeEach(() => {
  h = fileActionHarness()
})

afterEach(() => h.remove())

describe('search_files', () => {
  it('finds literal text line by line, in byte order, with workspace-relative paths', async () => {
    tree({ 'src/a.ts': 'const a = 1\n// TODO: a.b\n', 'src/b.ts': 'x\r\ny TODO\r\n', 'notes.md': 'TODO first\n' })
    const data = dataOf<SearchFilesData>(await h.call('search_files', { pattern: 'TODO' }))
    expect(found(data)).toEqual(['notes.md:1: TODO first', 'src/a.ts:2: // TODO: a.b', 'src/b.ts:2: y TODO'])
    expect(data.truncated).toBe(false)
    // Literal by default: the dot is a dot.
    expect(found(dataOf(await h.call('search_files', { pattern: 'a.b' })))).toEqual(['src/a.ts:2: // TODO: a.b'])
    expect(found(dataOf(await h.call('search_files', { pattern: 'a\\.b|const', regex: true })))).toEqual([
      'src/a.ts:1: const a = 1',
      'src/a.ts:2: // TODO: a.b'
    ])
  })

  it('respects .gitignore and .ignore files, nested ones and negations, from the workspace root down', async () => {
    tree({
      '.gitignore': 'build/\n*.log\n!keep.log\n',
      'build/out.js': 'needle\n',
      'app.log': 'needle\n',
      'keep.log': 'needle\n',
      'pkg/.gitignore': 'generated.ts\n',
      'pkg/generated.ts': 'needle\n',
      'pkg/src/main.ts': 'needle\n',
      'pkg/src/.ignore': 'secret*\n',
      'pkg/src/secret.ts': 'needle\n',
      '.git/config': 'needle\n'
    })
    const files = dataOf<SearchFilesData>(await h.call('search_files', { pattern: 'needle' })).matches.map((match) => match.file)
    expect(files).toEqual(['keep.log', 'pkg/src/main.ts'])
    // Searching below the root still applies the root's rules.
    const inPkg = async (path: string) => dataOf<SearchFilesData>(await h.call('search_files', { pattern: 'needle', path })).matches.map((match) => match.file)
    expect(await inPkg('pkg')).toEqual(['pkg/src/main.ts'])
    // A folder named as the path is searched even if ignored, as ripgrep does; other rules still apply inside.
    tree({ 'build/debug.log': 'needle\n' })
    expect(await inPkg('build')).toEqual(['build/out.js'])
  })

  it('filters by glob: a glob without / matches names at any depth, one with / the whole path', async () => {
    tree({ 'a.ts': 'hit\n', 'src/b.ts': 'hit\n', 'src/c.js': 'hit\n', 'test/d.ts': 'hit\n' })
    const names = async (glob: string) => dataOf<SearchFilesData>(await h.call('search_files', { pattern: 'hit', glob })).matches.map((match) => match.file)
    expect(await names('*.ts')).toEqual(['a.ts', 'src/b.ts', 'test/d.ts'])
    expect(await names('src/**')).toEqual(['src/b.ts', 'src/c.js'])
    expect(await names('{src,test}/*.ts')).toEqual(['src/b.ts', 'test/d.ts'])
  })

  it('searches one named file, and a folder named through a link inside the workspace', async () => {
    tree({ 'src/a.ts': 'one\ntwo\n', 'src/b.ts': 'two\n' })
    symlinkSync('src', h.at('code'))
    expect(found(dataOf(await h.call('search_files', { pattern: 'two', path: 'src/a.ts' })))).toEqual(['src/a.ts:2: two'])
    expect(found(dataOf(await h.call('search_files', { pattern: 'two', path: 'code' })))).toEqual(['src/a.ts:2: two', 'src/b.ts:1: two'])
  })

  it('skips binary files, huge files, hard links, links, FIFOs and .airlock/, and says what it skipped', async () => {
    tree({
      'bin.dat': Buffer.from('needle\u0000'),
      'big.txt': `needle\n${'x'.repeat(searchBounds.maxFileBytes)}`,
      'ok.txt': 'needle\n',
      '.airlock/executions/a/source/x.py': 'needle\n'
    })
    writeFileSync(h.outside + '/secret.txt', 'needle outside\n')
    linkSync(h.outside + '/secret.txt', h.at('hard.txt'))
    symlinkSync(h.outside + '/secret.txt', h.at('soft.txt'))
    execFileSync('mkfifo', [h.at('pipe')])
    const result = await h.call('search_files', { pattern: 'needle' })
    expect(found(dataOf(result))).toEqual(['ok.txt:1: needle'])
    expect(result.diagnostics.join('\n')).toMatch(/1 binary file[\s\S]*1 file over 4194304 bytes[\s\S]*1 hard-linked file/)
  })

  it('bounds the matches and the length of a line, and says truncated', async () => {
    tree({ 'many.txt': `${'hit\n'.repeat(searchBounds.maxMatches + 10)}`, 'wide.txt': `hit${'y'.repeat(2000)}\n` })
    const data = dataOf<SearchFilesData>(await h.call('search_files', { pattern: 'hit' }))
    expect(data.matches).toHaveLength(searchBounds.maxMatches)
    expect(data.truncated).toBe(true)
    const wide = dataOf<SearchFilesData>(await h.call('search_files', { pattern: 'hit', path: 'wide.txt' }))
    expect(wide.matches[0]?.text).toHaveLength(searchBounds.maxLineChars + 1)
  })

  it('refuses a regular expression or glob that does not compile, naming which', async () => {
    expect((await h.call('search_files', { pattern: '(unclosed', regex: true })).error).toMatchObject({
      code: 'workspace_file.invalid_pattern',
      message: expect.stringMatching(/^pattern is not a valid/)
    })
    // Literal search takes any text.
    expect((await h.call('search_files', { pattern: '(unclosed' })).ok).toBe(true)
  })

  it('stops a catastrophic regular expression at the deadline without stalling the main thread', async () => {
    const quick = createSearchFilesAction({ ...searchBounds, deadlineMs: 1500 })
    const fast = fileActionHarness({ specs: [...fileActions.filter((spec) => spec.name !== 'search_files'), quick] })
    try {
      writeFileSync(fast.at('evil.txt'), `${'a'.repeat(40)}!\n`)
      let ticks = 0
      const ticker = setInterval(() => (ticks += 1), 50)
      const started = performance.now()
      const result = await fast.call('search_files', { pattern: '^(a+)+$', regex: true })
      const elapsed = performance.now() - started
      clearInterval(ticker)
      const data = dataOf<SearchFilesData>(result)
      expect(data).toEqual({ matches: [], truncated: true })
      expect(result.diagnostics.join()).toMatch(/ran out of time/)
      expect(elapsed).toBeLessThan(5000)
      // The event loop kept turning while the worker backtracked.
      expect(ticks).toBeGreaterThan(10)
    } finally {
      fast.remove()
    }
  })

  it('is cancelled with its call', async () => {
    writeFileSync(h.at('evil.txt'), `${'a'.repeat(40)}!\n`)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 200)
    const result = await h.call('search_files', { pattern: '^(a+)+$', regex: true }, controller.signal)
    expect(result.status).toBe('cancelled')
  })
})
