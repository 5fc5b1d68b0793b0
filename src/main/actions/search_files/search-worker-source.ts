/**
 * The code of the search worker, as text run with `new Worker(source, { eval: true })`. Everything
 * an agent or its workspace controls that could take unbounded time runs here, never on Airlock's
 * main thread: the agent's regular expression (catastrophic backtracking), its glob, and the
 * workspace's `.gitignore` patterns (which the `ignore` package turns into regular expressions).
 * The main thread walks the tree and reads the files, and terminates this worker at the deadline.
 *
 * A search root that an ignore file above it ignores is still searched (as ripgrep searches a
 * path it is given); the rules go on applying below it otherwise.
 *
 * It is plain JavaScript in a string so that it runs the same under vitest (TypeScript sources)
 * and in the bundled app (no extra build entry); it loads `ignore` and `picomatch` from the paths
 * the main thread resolved. Messages:
 *   { id, type: 'directory', dir, ignoreTexts, entries: [{ name, isDir }] } -> { id, keep: boolean[] }
 *     (registers the folder's ignore files, then says which entries to descend into or search)
 *   { id, type: 'file', file, buffer, limit } -> { id, binary, matches: [{ line, text }], more }
 */
export const searchWorkerSource = String.raw`
'use strict'
const { parentPort, workerData } = require('node:worker_threads')
const ignoreModule = require(workerData.ignorePath)
const makeIgnore = typeof ignoreModule === 'function' ? ignoreModule : ignoreModule.default
const picomatch = require(workerData.picomatchPath)
const { pattern, regex, glob, maxLineChars, root } = workerData
const expression = regex ? new RegExp(pattern) : undefined
const lineMatches = expression ? (line) => expression.test(line) : (line) => line.includes(pattern)
// A glob without / matches a name at any depth (picomatch's basename option misreads globs that have one).
const globMatches = glob ? picomatch(glob, { dot: true, basename: !glob.includes('/') }) : undefined
const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
const rules = new Map()
// A folder named as the search root is searched even when ignored (as ripgrep searches a path it
// is given): in the ignore files above it, the lines that ignore it (or a folder above it) are dropped.
function withoutRootLines(at, text) {
  if (root === '' || at === root || !(at === '' || root.startsWith(at + '/'))) return text
  const rootPath = (at === '' ? root : root.slice(at.length + 1)) + '/'
  return text
    .split('\n')
    .filter((line) => {
      const trimmed = line.trim()
      if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('!')) return true
      try {
        return !makeIgnore().add(line).ignores(rootPath)
      } catch {
        return true
      }
    })
    .join('\n')
}

// The nearest ignore file with an opinion decides (deeper files override shallower ones).
function ignored(dir, name, isDir) {
  const full = dir === '' ? name : dir + '/' + name
  let at = dir
  for (;;) {
    const rule = rules.get(at)
    if (rule) {
      const relative = (at === '' ? full : full.slice(at.length + 1)) + (isDir ? '/' : '')
      try {
        const verdict = rule.test(relative)
        if (verdict.ignored) return true
        if (verdict.unignored) return false
      } catch {
        // A pattern the ignore rules cannot test against this path: the rules of the folder above decide.
      }
    }
    if (at === '') return false
    const slash = at.lastIndexOf('/')
    at = slash < 0 ? '' : at.slice(0, slash)
  }
}

function cut(line) {
  return line.length > maxLineChars ? line.slice(0, maxLineChars) + '…' : line
}

function searchText(text, limit) {
  const matches = []
  let start = 0
  let number = 1
  while (start < text.length) {
    const newline = text.indexOf('\n', start)
    const end = newline < 0 ? text.length : newline
    let line = text.slice(start, end)
    if (line.endsWith('\r')) line = line.slice(0, -1)
    if (lineMatches(line)) {
      if (matches.length >= limit) return { matches, more: true }
      matches.push({ line: number, text: cut(line) })
    }
    start = end + 1
    number += 1
  }
  return { matches, more: false }
}

parentPort.on('message', (message) => {
  if (message.type === 'directory') {
    if (message.ignoreTexts.length > 0) {
      const rule = makeIgnore()
      for (const text of message.ignoreTexts) rule.add(withoutRootLines(message.dir, text))
      rules.set(message.dir, rule)
    }
    const keep = message.entries.map((entry) => {
      if (ignored(message.dir, entry.name, entry.isDir)) return false
      if (entry.isDir || !globMatches) return true
      return globMatches(message.dir === '' ? entry.name : message.dir + '/' + entry.name)
    })
    parentPort.postMessage({ id: message.id, keep })
    return
  }
  const bytes = new Uint8Array(message.buffer)
  if (bytes.indexOf(0) >= 0) {
    parentPort.postMessage({ id: message.id, binary: true, matches: [], more: false })
    return
  }
  const found = searchText(decoder.decode(bytes), message.limit)
  parentPort.postMessage({ id: message.id, binary: false, matches: found.matches, more: found.more })
})
`
