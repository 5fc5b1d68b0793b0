import hljs from 'highlight.js/lib/core'
import bash from 'highlight.js/lib/languages/bash'
import css from 'highlight.js/lib/languages/css'
import diff from 'highlight.js/lib/languages/diff'
import dockerfile from 'highlight.js/lib/languages/dockerfile'
import go from 'highlight.js/lib/languages/go'
import ini from 'highlight.js/lib/languages/ini'
import javascript from 'highlight.js/lib/languages/javascript'
import json from 'highlight.js/lib/languages/json'
import makefile from 'highlight.js/lib/languages/makefile'
import markdown from 'highlight.js/lib/languages/markdown'
import python from 'highlight.js/lib/languages/python'
import rust from 'highlight.js/lib/languages/rust'
import sql from 'highlight.js/lib/languages/sql'
import typescript from 'highlight.js/lib/languages/typescript'
import xml from 'highlight.js/lib/languages/xml'
import yaml from 'highlight.js/lib/languages/yaml'

// Only the languages agents usually write; highlight.js core keeps the bundle small.
const languages = { bash, css, diff, dockerfile, go, ini, javascript, json, makefile, markdown, python, rust, sql, typescript, xml, yaml }
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language)

/**
 * Workspace files are written by sandboxed code, so highlighting must not let a file stall the
 * window. highlight.js grammars can be quadratic on crafted input (131 072 × `a` in TypeScript
 * took 49 s; 64 KiB of `a.a.a.` lines as ini took 7 s, measured here). So a file is highlighted as
 * a whole only when it is small and not ini (worst seen at 16 KiB: ~90 ms); otherwise line by
 * line, each line at most `lineLimit` characters (worst seen at 2 000: ~17 ms), until
 * `budgetMs` is spent, after which the rest stays plain. Per-line colours can miss a construct
 * that spans lines (a block comment); that is the price of never freezing.
 */
export const wholeFileLimit = 16 * 1024
export const lineLimit = 2000
export const budgetMs = 150

/** How much of a file got colours: `all`, `some` (budget spent or over-long lines), or `none`. */
export type Coloured = 'all' | 'some' | 'none'

/** A file's lines as highlighted nodes, and how much of it got colours. `clock` is for tests. */
export function highlightLines(
  text: string,
  language: string | undefined,
  clock: () => number = () => performance.now()
): { lines: HighlightNode[][]; coloured: Coloured } {
  if (!language || !hljs.getLanguage(language)) return { lines: splitLines([text]), coloured: 'none' }
  if (text.length <= wholeFileLimit && language !== 'ini' && longestLine(text) <= lineLimit) {
    return { lines: splitLines(highlightTree(text, language)), coloured: 'all' }
  }
  const started = clock()
  let plain = 0
  const lines = splitLines([text]).map((line) => {
    const source = typeof line[0] === 'string' ? line[0] : ''
    if (source.length > lineLimit || clock() - started > budgetMs) {
      plain++
      return line
    }
    return highlightTree(source, language)
  })
  return { lines, coloured: plain === 0 ? 'all' : plain === lines.length ? 'none' : 'some' }
}

function longestLine(text: string): number {
  let longest = 0
  let from = 0
  while (from <= text.length) {
    const end = text.indexOf('\n', from)
    const stop = end === -1 ? text.length : end
    longest = Math.max(longest, stop - from)
    from = stop + 1
  }
  return longest
}

/** A piece of highlighted text: plain text, or a span with highlight.js classes around more pieces. */
export type HighlightNode = string | { className: string; children: HighlightNode[] }

/**
 * Highlights text (callers bound its size: `highlightLines`) and returns it as a tree of text and classed spans, never as HTML: the workspace
 * is written by sandboxed code, so its files are hostile input. highlight.js's escaped output is
 * read back through an inert DOMParser document and only text and `hljs-*` classes survive.
 */
export function highlightTree(text: string, language: string | undefined): HighlightNode[] {
  if (!language || !hljs.getLanguage(language)) return [text]
  let html: string
  try {
    html = hljs.highlight(text, { language, ignoreIllegals: true }).value
  } catch {
    return [text]
  }
  const doc = new DOMParser().parseFromString(`<pre>${html}</pre>`, 'text/html')
  return childrenOf(doc.body.firstChild ?? doc.body)
}

function childrenOf(node: Node): HighlightNode[] {
  const out: HighlightNode[] = []
  node.childNodes.forEach((child) => {
    if (child.nodeType === Node.TEXT_NODE) out.push(child.textContent ?? '')
    else if (child.nodeType === Node.ELEMENT_NODE) {
      const className = ((child as Element).getAttribute('class') ?? '')
        .split(/\s+/)
        .filter((name) => /^hljs-[a-z_-]+$/.test(name) || /^(language|function_|class_)$/.test(name))
        .join(' ')
      out.push({ className, children: childrenOf(child) })
    }
  })
  return out
}

/** Splits a highlight tree into lines (a span crossing a line break is cut into one span per line), for line numbers. */
export function splitLines(nodes: HighlightNode[]): HighlightNode[][] {
  const lines: HighlightNode[][] = [[]]
  const push = (node: HighlightNode, into: HighlightNode[][]) => into[into.length - 1]!.push(node)
  const walk = (list: HighlightNode[], wrap: (node: HighlightNode) => HighlightNode) => {
    for (const node of list) {
      if (typeof node === 'string') {
        const parts = node.split('\n')
        parts.forEach((part, index) => {
          if (index > 0) lines.push([])
          if (part !== '') push(wrap(part), lines)
        })
      } else {
        walk(node.children, (inner) => wrap({ className: node.className, children: [inner] }))
      }
    }
  }
  walk(nodes, (node) => node)
  if (lines.length > 1 && lines[lines.length - 1]!.length === 0) lines.pop()
  return lines
}
