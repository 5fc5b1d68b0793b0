// eslint-disable-next-line no-control-regex -- escape sequences are what this finds
const escapeSequence = /\x1b(?:\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x40-\x5f])/g

/**
 * Terminal text without its escape sequences — CSI (colours, cursor moves), OSC (titles,
 * hyperlinks; ended by BEL or ST, or unended) and two-character ESC sequences — each replaced by
 * `replacement`: the text as the console's views show it once escapes are dropped, for search, a
 * one-line preview, and redaction that must see what the operator will read.
 */
export function withoutEscapes(text: string, replacement = ''): string {
  return text.replace(escapeSequence, replacement)
}

/**
 * The text as it shows (escape sequences dropped, as `withoutEscapes`) with, for each character
 * left, its index in `text`: what a search over shown text needs to act on the original.
 */
export function shownWithOrigin(text: string): { shown: string; origin: number[] } {
  let shown = ''
  const origin: number[] = []
  let last = 0
  const keep = (from: number, to: number) => {
    for (let index = from; index < to; index++) origin.push(index)
    shown += text.slice(from, to)
  }
  for (const match of text.matchAll(escapeSequence)) {
    keep(last, match.index)
    last = match.index + match[0].length
  }
  keep(last, text.length)
  return { shown, origin }
}
