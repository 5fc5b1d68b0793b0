import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sandboxIdentity } from '../../core/sandbox'
import { dataOf, fileActionHarness } from '../../../../test/actions/file-action-harness'
import { makeTempDir } from '../../../../test/support/temp-home'
import { replacementDiff, type EditFileData } from '.'

let h: ReturnType<typeof fileActionHarness>

beforeEach(() => {
  h = fileActionHarness()
})

afterEach(() => h.remove())

const numbered = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}\n`).join('')

/** Applies a diff with GNU patch to a copy of `before` and returns the result: the diff must be a real one. */
function applyWithPatch(path: string, before: string, diff: string): string {
  const dir = makeTempDir('airlock-diff-')
  try {
    mkdirSync(join(dir.path, ...path.split('/').slice(0, -1)), { recursive: true })
    writeFileSync(join(dir.path, path), before)
    execFileSync('patch', ['-p1', '--quiet', '--no-backup-if-mismatch'], { cwd: dir.path, input: diff })
    return readFileSync(join(dir.path, path), 'utf8')
  } finally {
    dir.remove()
  }
}

describe('edit_file', () => {
  it('replaces the one occurrence and returns a unified diff that patch applies', async () => {
    const before = numbered(20)
    writeFileSync(h.at('a.txt'), before)
    const data = dataOf<EditFileData>(await h.call('edit_file', { path: 'a.txt', oldText: 'line 10\n', newText: 'line ten\nline ten and a half\n' }))
    const after = readFileSync(h.at('a.txt'), 'utf8')
    expect(after).toBe(before.replace('line 10\n', 'line ten\nline ten and a half\n'))
    expect(data).toMatchObject({ path: 'a.txt', replacements: 1 })
    expect(data.diff).toBe(
      [
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -7,7 +7,8 @@',
        ' line 7',
        ' line 8',
        ' line 9',
        '-line 10',
        '+line ten',
        '+line ten and a half',
        ' line 11',
        ' line 12',
        ' line 13',
        ''
      ].join('\n')
    )
    expect(applyWithPatch('a.txt', before, data.diff)).toBe(after)
  })

  it('replaces literally: $& and $1 are not patterns', async () => {
    writeFileSync(h.at('p.js'), 'const price = PRICE\n')
    dataOf(await h.call('edit_file', { path: 'p.js', oldText: 'PRICE', newText: "'$&' + `$1` + $$" }))
    expect(readFileSync(h.at('p.js'), 'utf8')).toBe("const price = '$&' + `$1` + $$\n")
  })

  it('refuses 0 and several matches, saying how many, and changes nothing', async () => {
    writeFileSync(h.at('t.txt'), 'foo bar foo baz foo\n')
    const none = await h.call('edit_file', { path: 't.txt', oldText: 'qux', newText: 'x' })
    expect(none).toMatchObject({ status: 'error', error: { code: 'workspace_file.no_match' } })
    expect(none.error?.message).toMatch(/0 matches/)
    const many = await h.call('edit_file', { path: 't.txt', oldText: 'foo', newText: 'x' })
    expect(many).toMatchObject({ status: 'error', error: { code: 'workspace_file.ambiguous_match' } })
    expect(many.error?.message).toMatch(/matches 3 times/)
    expect(readFileSync(h.at('t.txt'), 'utf8')).toBe('foo bar foo baz foo\n')
  })

  it('replaces every occurrence with replaceAll, in one hunk per region, and patch agrees', async () => {
    const before = `${numbered(3)}TODO one\n${numbered(12)}TODO two\nTODO three\n`
    writeFileSync(h.at('todo.md'), before)
    const data = dataOf<EditFileData>(await h.call('edit_file', { path: 'todo.md', oldText: 'TODO', newText: 'DONE', replaceAll: true }))
    expect(data.replacements).toBe(3)
    const after = readFileSync(h.at('todo.md'), 'utf8')
    expect(after).toBe(before.replaceAll('TODO', 'DONE'))
    expect(data.diff.match(/^@@/gm)).toHaveLength(2)
    expect(applyWithPatch('todo.md', before, data.diff)).toBe(after)
  })

  it('keeps the permission bits and gives the file to the sandbox identity', async () => {
    writeFileSync(h.at('run.sh'), 'echo a\n')
    chmodSync(h.at('run.sh'), 0o750)
    dataOf(await h.call('edit_file', { path: 'run.sh', oldText: 'a', newText: 'b' }))
    expect(statSync(h.at('run.sh')).mode & 0o777).toBe(0o750)
    expect(statSync(h.at('run.sh')).uid).toBe(sandboxIdentity().uid)
  })

  it('refuses binary files: NUL bytes, or not valid UTF-8', async () => {
    writeFileSync(h.at('nul.bin'), Buffer.from('abc\u0000def'))
    writeFileSync(h.at('latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
    expect((await h.call('edit_file', { path: 'nul.bin', oldText: 'abc', newText: 'x' })).error?.code).toBe('workspace_file.binary_file')
    expect((await h.call('edit_file', { path: 'latin1.txt', oldText: 'caf', newText: 'x' })).error?.code).toBe('workspace_file.binary_file')
    expect(readFileSync(h.at('nul.bin'), 'utf8')).toBe('abc\u0000def')
  })

  it('refuses a file over 16 MiB, and an edit that would grow a file past it', async () => {
    writeFileSync(h.at('huge.txt'), Buffer.alloc(16 * 1024 * 1024 + 1, 0x61))
    expect(await h.call('edit_file', { path: 'huge.txt', oldText: 'a', newText: 'b', replaceAll: true })).toMatchObject({
      status: 'blocked',
      error: { code: 'workspace_file.too_large' }
    })
    writeFileSync(h.at('almost.txt'), `${'a'.repeat(16 * 1024 * 1024 - 2)}\nX`)
    const grow = await h.call('edit_file', { path: 'almost.txt', oldText: 'X', newText: 'XYZ' })
    expect(grow.error?.code).toBe('workspace_file.too_large')
    expect(statSync(h.at('almost.txt')).size).toBe(16 * 1024 * 1024)
  })

  it('refuses an empty oldText with an error naming the field', async () => {
    writeFileSync(h.at('t.txt'), 'x\n')
    const result = await h.call('edit_file', { path: 't.txt', oldText: '', newText: 'y' })
    expect(result.error?.message).toMatch(/oldText: must not be empty/)
  })
})

describe('replacementDiff', () => {
  const cases: { name: string; before: string; find: string; replace: string }[] = [
    { name: 'a change on the first line', before: numbered(5), find: 'line 1\n', replace: 'first\n' },
    { name: 'a change on the last line without a newline', before: 'a\nb\nc', find: 'c', replace: 'C' },
    { name: 'adding a newline at the end', before: 'a\nb', find: 'b', replace: 'b\n' },
    { name: 'removing the newline at the end', before: 'a\nb\n', find: 'b\n', replace: 'b' },
    { name: 'joining two lines', before: numbered(8), find: '4\nline 5', replace: '4 + 5' },
    { name: 'deleting lines', before: numbered(8), find: 'line 3\nline 4\n', replace: '' },
    { name: 'emptying a file', before: 'only\n', find: 'only\n', replace: '' },
    { name: 'two replacements on one line', before: 'x x\ny\n', find: 'x', replace: 'zz' },
    { name: 'far apart replacements', before: `k\n${numbered(30)}k\n`, find: 'k\n', replace: 'K\n' }
  ]
  it.each(cases)('$name: patch turns before into after', ({ before, find, replace }) => {
    const positions: number[] = []
    for (let at = before.indexOf(find); at >= 0; at = before.indexOf(find, at + find.length)) positions.push(at)
    const diff = replacementDiff('dir/f.txt', before, positions, find.length, replace)
    expect(applyWithPatch('dir/f.txt', before, diff)).toBe(before.split(find).join(replace))
  })

  it('is empty when the text does not change', () => {
    expect(replacementDiff('f', 'same\n', [0], 4, 'same')).toBe('')
  })
})
