/**
 * Line continuations. Bash removes backslash-newline while it reads its input, before it splits
 * words, everywhere except inside single quotes (`'…'`, `$'…'`), comments and the body of a
 * here-document whose delimiter is quoted: `r\⏎m -rf /` runs `rm`. Tree-sitter instead treats the
 * pair as a word break, so the analysis removes the pairs bash would remove and parses the joined
 * text again (every script parse does this, so an `sh -c '…'` script is joined the way the inner
 * shell joins it). Where the pairs sit is read from a first parse of the text: its single-quoted
 * strings, comments and quoted here-document bodies keep theirs. A backslash that is itself
 * escaped (`\\⏎`) is not a continuation.
 */
import type { Node, Tree } from 'web-tree-sitter'

const keeps = ['raw_string', 'ansi_c_string', 'comment', 'heredoc_body']

/** The text with bash's line continuations removed, or null when it has none to remove. */
export function joinContinuations(text: string, tree: Tree): string | null {
  if (!text.includes('\\\n')) return null
  const kept: [number, number][] = []
  for (const node of tree.rootNode.descendantsOfType(keeps)) {
    if (node && (node.type !== 'heredoc_body' || quotedHeredoc(node))) kept.push([node.startIndex, node.endIndex])
  }
  kept.sort((a, b) => a[0] - b[0])
  let out = ''
  let from = 0
  let k = 0
  for (let at = text.indexOf('\\\n'); at >= 0; at = text.indexOf('\\\n', at + 2)) {
    while (k < kept.length && (kept[k] as [number, number])[1] <= at) k++
    const range = kept[k]
    if (range && range[0] <= at) continue
    // Count the backslashes in front, within the same stretch of text: an odd run ends in one that is not escaped.
    const floor = Math.max(from, k > 0 ? (kept[k - 1] as [number, number])[1] : 0)
    let run = 1
    while (at - run >= floor && text[at - run] === '\\') run++
    if (run % 2 === 0) continue
    out += text.slice(from, at)
    from = at + 2
  }
  return from === 0 ? null : out + text.slice(from)
}

/** A here-doc body is literal when its delimiter has a quote or a backslash (`<<'E'`, `<<\E`). */
function quotedHeredoc(body: Node): boolean {
  const start = body.parent?.children.find((c) => c?.type === 'heredoc_start')
  return start ? /['"\\]/.test(start.text) : false
}
