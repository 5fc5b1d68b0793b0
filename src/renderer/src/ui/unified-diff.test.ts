import { describe, expect, it } from 'vitest'
import { parseUnifiedDiff } from './unified-diff'

describe('parseUnifiedDiff', () => {
  it('numbers each side of an edit and counts what it adds and removes', () => {
    const diff = ['--- a/notes/plan.md', '+++ b/notes/plan.md', '@@ -1,3 +1,3 @@', ' # Plan', '-- old step', '+- new step', ' end', ''].join('\n')
    const parsed = parseUnifiedDiff(diff)!
    expect(parsed.files).toHaveLength(1)
    const [file] = parsed.files
    expect(file).toMatchObject({ oldPath: 'notes/plan.md', newPath: 'notes/plan.md', added: 1, removed: 1 })
    expect(file!.hunks[0]!.lines).toEqual([
      { kind: 'context', text: '# Plan', oldLine: 1, newLine: 1 },
      { kind: 'del', text: '- old step', oldLine: 2 },
      { kind: 'add', text: '- new step', newLine: 2 },
      { kind: 'context', text: 'end', oldLine: 3, newLine: 3 }
    ])
    expect(parsed.notes).toEqual([])
  })

  it('reads a new file (an empty old side) from line 1, with the no-newline marker', () => {
    const diff = ['--- a/x.txt', '+++ b/x.txt', '@@ -0,0 +1,2 @@', '+one', '+two', '\\ No newline at end of file'].join('\n')
    const lines = parseUnifiedDiff(diff)!.files[0]!.hunks[0]!.lines
    expect(lines).toEqual([
      { kind: 'add', text: 'one', newLine: 1 },
      { kind: 'add', text: 'two', newLine: 2 },
      { kind: 'no-newline', text: 'No newline at end of file' }
    ])
  })

  it('keeps a file line that looks like a header inside its hunk (counts decide, not looks)', () => {
    const diff = ['--- a/evil.txt', '+++ b/evil.txt', '@@ -0,0 +1,3 @@', '+--- a/other', '++++ b/other', '+@@ -1 +1 @@', ''].join('\n')
    const parsed = parseUnifiedDiff(diff)!
    expect(parsed.files).toHaveLength(1)
    expect(parsed.files[0]!.hunks[0]!.lines.map((line) => line.text)).toEqual(['--- a/other', '+++ b/other', '@@ -1 +1 @@'])
    expect(parsed.files[0]!.added).toBe(3)
  })

  it('ends a cut hunk at the cut marker and keeps the marker as a note', () => {
    const diff = ['--- a/big.txt', '+++ b/big.txt', '@@ -0,0 +1,900 @@', '+line 1', '... preview cut: 12345 more characters not shown', ''].join('\n')
    const parsed = parseUnifiedDiff(diff)!
    expect(parsed.files[0]!.hunks[0]!.lines).toHaveLength(1)
    expect(parsed.notes).toEqual(['... preview cut: 12345 more characters not shown'])
  })

  it('keeps the section text after a hunk header and reads two hunks', () => {
    const diff = ['--- a/a.ts', '+++ b/a.ts', '@@ -2,1 +2,1 @@ function f()', '-x', '+y', '@@ -10 +10 @@', '-p', '+q'].join('\n')
    const hunks = parseUnifiedDiff(diff)!.files[0]!.hunks
    expect(hunks.map((h) => [h.header, h.section])).toEqual([
      ['@@ -2,1 +2,1 @@', 'function f()'],
      ['@@ -10 +10 @@', '']
    ])
    expect(hunks[1]!.lines).toEqual([
      { kind: 'del', text: 'p', oldLine: 10 },
      { kind: 'add', text: 'q', newLine: 10 }
    ])
  })

  it('is not a diff: a code preview or plain text', () => {
    expect(parseUnifiedDiff('language: python\nentrypoint: main.py\n| print(1)\n')).toBeUndefined()
    expect(parseUnifiedDiff('')).toBeUndefined()
    expect(parseUnifiedDiff('--- a/x\n+++ b/x\n')).toBeUndefined()
  })
})
