// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import { budgetMs, highlightLines, highlightTree, lineLimit, splitLines, wholeFileLimit, type HighlightNode } from './highlight'

const text = (nodes: HighlightNode[]): string => nodes.map((n) => (typeof n === 'string' ? n : text(n.children))).join('')
const classes = (nodes: HighlightNode[]): string[] => nodes.flatMap((n) => (typeof n === 'string' ? [] : [n.className, ...classes(n.children)]))

describe('highlight', () => {
  it('colours known languages and keeps the text exactly', () => {
    const source = 'def f(x):\n    return "<b>" + x  # hi\n'
    const tree = highlightTree(source, 'python')
    expect(text(tree)).toBe(source)
    expect(classes(tree)).toEqual(expect.arrayContaining(['hljs-keyword', 'hljs-string', 'hljs-comment']))
  })

  it('never turns file content into markup: tags stay text', () => {
    const hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    for (const language of ['xml', 'markdown', undefined]) {
      const tree = highlightTree(hostile, language)
      expect(text(tree)).toBe(hostile)
      for (const name of classes(tree)) expect(name).toMatch(/^((hljs-[a-z_-]+|language|function_|class_)( |$))*$/)
    }
  })

  it('leaves unknown languages as plain text', () => {
    expect(highlightTree('a < b', 'cobol')).toEqual(['a < b'])
  })

  it('splits into lines, cutting spans that cross a line break', () => {
    const lines = splitLines(highlightTree('/* a\nb */\nx = 1\n', 'javascript'))
    expect(lines.map(text)).toEqual(['/* a', 'b */', 'x = 1'])
    expect(classes(lines[1]!)).toContain('hljs-comment')
    expect(splitLines(['a\n\nb']).map(text)).toEqual(['a', '', 'b'])
  })

  it('never hands highlight.js a line longer than the limit: a 128 KiB identifier stays plain', () => {
    const hostile = 'a'.repeat(128 * 1024)
    const { lines, coloured } = highlightLines(hostile, 'typescript')
    expect(coloured).toBe('none')
    expect(lines.map(text)).toEqual([hostile])
  })

  it('highlights a large file line by line until the budget is spent, then leaves the rest plain', () => {
    const source = Array.from({ length: 2000 }, (_, index) => `const x${index} = "s" // c`).join('\n')
    expect(source.length).toBeGreaterThan(wholeFileLimit)
    let now = 0
    const clock = () => (now += budgetMs / 10)
    const { lines, coloured } = highlightLines(source, 'javascript', clock)
    expect(coloured).toBe('some')
    expect(lines.map(text).join('\n')).toBe(source)
    expect(classes(lines[0]!)).toContain('hljs-string')
    expect(classes(lines[lines.length - 1]!)).toEqual([])
  })

  it('takes ini (quadratic on dotted keys as a whole file) line by line even when small, and skips over-long lines', () => {
    const long = 'k = ' + 'v'.repeat(lineLimit)
    const { lines, coloured } = highlightLines(`[section]\n${long}\n`, 'ini', () => 0)
    expect(coloured).toBe('some')
    expect(classes(lines[0]!)).toContain('hljs-section')
    expect(classes(lines[1]!)).toEqual([])
  })
})
