import { execFileSync } from 'node:child_process'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { dataOf, fileActionHarness } from '../../../../test/actions/file-action-harness'
import { pageBytes, utf8Boundary, type ReadFileData } from '.'

let h: ReturnType<typeof fileActionHarness>

beforeEach(() => {
  h = fileActionHarness()
})

afterEach(() => h.remove())

const numbered = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}\n`).join('')

describe('read_file', () => {
  it('returns a small file whole and verbatim (BOM, CRLF and a missing last newline kept)', async () => {
    const text = '\uFEFFfirst\r\nsecond\nthird'
    writeFileSync(h.at('notes.txt'), text)
    const result = await h.call('read_file', { path: 'notes.txt' })
    expect(dataOf<ReadFileData>(result)).toEqual({ path: 'notes.txt', content: text, totalBytes: Buffer.byteLength(text), truncated: false })
    expect(result.diagnostics).toEqual([])
  })

  it('pages by lines: offset is the first line, limit the most lines, and the next offset is given', async () => {
    writeFileSync(h.at('n.txt'), numbered(10))
    const first = await h.call('read_file', { path: 'n.txt', limit: 3 })
    expect(dataOf<ReadFileData>(first)).toMatchObject({ content: 'line 1\nline 2\nline 3\n', truncated: true, totalBytes: 71 })
    expect(first.meta.page).toEqual({ offset: 1, lines: 3, nextOffset: 4 })
    expect(first.diagnostics.join()).toMatch(/read again with offset 4/)
    const middle = await h.call('read_file', { path: 'n.txt', offset: 4, limit: 2 })
    expect(dataOf<ReadFileData>(middle).content).toBe('line 4\nline 5\n')
    const last = await h.call('read_file', { path: 'n.txt', offset: 9 })
    expect(dataOf<ReadFileData>(last)).toMatchObject({ content: 'line 9\nline 10\n', truncated: false })
    expect(last.meta.page).toEqual({ offset: 9, lines: 2 })
  })

  it('says how many lines the file has when the offset is past its end', async () => {
    writeFileSync(h.at('n.txt'), numbered(3))
    const past = await h.call('read_file', { path: 'n.txt', offset: 4 })
    expect(dataOf<ReadFileData>(past)).toMatchObject({ content: '', truncated: false })
    expect(past.diagnostics.join()).toMatch(/the file has 3 lines; offset 4 is past its end/)
    writeFileSync(h.at('m.txt'), 'a\nb')
    expect((await h.call('read_file', { path: 'm.txt', offset: 7 })).diagnostics.join()).toMatch(/the file has 2 lines/)
  })

  it('caps a page at 256 KiB on a line end, and pages through the whole file', async () => {
    const line = `${'x'.repeat(99)}\n`
    const lines = 6000
    writeFileSync(h.at('big.txt'), line.repeat(lines))
    let offset = 1
    let seen = ''
    for (let pages = 0; pages < 10; pages++) {
      const result = await h.call('read_file', { path: 'big.txt', offset })
      const data = dataOf<ReadFileData>(result)
      expect(Buffer.byteLength(data.content)).toBeLessThanOrEqual(pageBytes)
      expect(data.content.endsWith('\n')).toBe(true)
      seen += data.content
      if (!data.truncated) break
      offset = (result.meta.page as { nextOffset: number }).nextOffset
    }
    expect(seen).toBe(line.repeat(lines))
  })

  it('cuts a line longer than a page at a character boundary and says so', async () => {
    writeFileSync(h.at('long.txt'), `${'é'.repeat(pageBytes)}\nnext\n`)
    const result = await h.call('read_file', { path: 'long.txt' })
    const data = dataOf<ReadFileData>(result)
    expect(data.truncated).toBe(true)
    expect(data.content).toBe('é'.repeat(pageBytes / 2))
    expect(result.diagnostics.join()).toMatch(/line 1 is longer than a page/)
    expect(dataOf<ReadFileData>(await h.call('read_file', { path: 'long.txt', offset: (result.meta.page as { nextOffset: number }).nextOffset })).content).toBe(
      'next\n'
    )
  })

  it('shows bytes that are not UTF-8 as U+FFFD and says the file looks binary', async () => {
    writeFileSync(h.at('bin'), Buffer.from([0x61, 0xff, 0x00, 0x62]))
    const result = await h.call('read_file', { path: 'bin' })
    expect(dataOf<ReadFileData>(result).content).toBe('a\uFFFD\u0000b')
    expect(result.diagnostics.join('\n')).toMatch(/not valid UTF-8[\s\S]*NUL bytes/)
  })

  it('reads through a link inside the workspace, and refuses folders, missing files and FIFOs', async () => {
    mkdirSync(h.at('docs'))
    writeFileSync(h.at('docs/a.md'), '# A\n')
    symlinkSync('docs/a.md', h.at('readme'))
    expect(dataOf<ReadFileData>(await h.call('read_file', { path: 'readme' })).content).toBe('# A\n')
    expect((await h.call('read_file', { path: 'docs' })).error?.code).toBe('workspace_file.is_directory')
    expect((await h.call('read_file', { path: 'docs/none.md' })).error?.code).toBe('workspace_file.not_found')
    execFileSync('mkfifo', [h.at('pipe')])
    expect((await h.call('read_file', { path: 'pipe' })).error?.code).toBe('workspace_file.not_regular_file')
  })
})

describe('utf8Boundary', () => {
  it('never splits a character', () => {
    const bytes = Buffer.from('aé😀')
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((end) => utf8Boundary(bytes, end))).toEqual([0, 1, 1, 3, 3, 3, 3, 7])
  })
})
