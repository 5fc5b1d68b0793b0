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
