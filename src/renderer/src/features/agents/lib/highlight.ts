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

/** Files longer than this are shown as plain text: highlighting them would stall the window. */
export const highlightLimit = 128 * 1024

/** A piece of highlighted text: plain text, or a span with highlight.js classes around more pieces. */
export type HighlightNode = string | { className: string; children: HighlightNode[] }

/**
 * Highlights text and returns it as a tree of text and classed spans, never as HTML: the workspace
 * is written by sandboxed code, so its files are hostile input. highlight.js's escaped output is
 * read back through an inert DOMParser document and only text and `hljs-*` classes survive.
 */
export function highlightTree(text: string, language: string | undefined): HighlightNode[] {
  if (!language || !hljs.getLanguage(language) || text.length > highlightLimit) return [text]
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
