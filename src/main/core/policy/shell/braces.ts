/**
 * Brace expansion, which bash does first, on the unquoted text of a word: `/{bin,usr}` gives the
 * two words `/bin` and `/usr`, `a{1..3}` gives `a1 a2 a3`, `{rm,-rf,/}` the words `rm -rf /`.
 * Word evaluation marks the braces and commas that are syntax (unquoted, unescaped, written in
 * the line, not from a variable's value) with private-use characters; `expandBraces` expands
 * comma lists and `{a..b}` ranges, nested or in sequence. More than `maxBraceWords` results gives
 * null: the word is then kept as written and is not static.
 */

/** Marks for `{`, `,` and `}` that are brace syntax. */
export const braceOpen = '\uE000'
export const braceComma = '\uE001'
export const braceClose = '\uE002'
const marks = /[\uE000-\uE002]/g
const maxBraceWords = 64

/** A piece of a word's value (see `words.ts`): only `split` pieces are field-split. */
export type BracePiece = { text: string; split: boolean; keep: boolean }
type Seg = BracePiece | { mark: string }

/** Unquoted word text with its brace syntax marked and backslash escapes removed. */
export function markBraces(text: string): string {
  return text.replace(/\\(\n|[\s\S])|([{,}])/g, (_, escaped: string | undefined, ch: string | undefined) => {
    if (escaped !== undefined) return escaped === '\n' ? '' : escaped
    return ch === '{' ? braceOpen : ch === ',' ? braceComma : braceClose
  })
}

/** The text with brace marks turned back into the characters they stand for. */
export function unmarkBraces(text: string): string {
  return text.replace(marks, (m) => (m === braceOpen ? '{' : m === braceComma ? ',' : '}'))
}

/** The piece lists a word expands to, or null when there are too many (or too deeply nested). */
export function expandBraces(pieces: BracePiece[]): BracePiece[][] | null {
  const start: Seg[] = []
  for (const p of pieces) {
    if (!/[\uE000-\uE002]/.test(p.text)) {
      start.push(p)
      continue
    }
    for (const part of p.text.split(/([\uE000-\uE002])/)) {
      if (/^[\uE000-\uE002]$/.test(part)) start.push({ mark: part })
      else if (part !== '') start.push({ ...p, text: part })
    }
  }
  if (start.filter((s) => 'mark' in s && s.mark === braceOpen).length > 32) return null
  const done: BracePiece[][] = []
  const queue: Seg[][] = [start]
  while (queue.length > 0) {
    const seq = queue.shift() as Seg[]
    const alternatives = firstGroup(seq)
    if (!alternatives) {
      done.push(seq.map((s) => ('mark' in s ? { text: unmarkBraces(s.mark), split: false, keep: true } : s)))
    } else {
      const { open, close, alts } = alternatives
      for (const alt of alts) queue.push([...seq.slice(0, open), ...alt, ...seq.slice(close + 1)])
    }
    if (done.length + queue.length > maxBraceWords) return null
  }
  return done
}

/** The first group that expands: its bounds and alternatives. */
function firstGroup(seq: Seg[]): { open: number; close: number; alts: Seg[][] } | null {
  for (let open = 0; open < seq.length; open++) {
    if (!isMark(seq[open], braceOpen)) continue
    let depth = 0
    const commas: number[] = []
    let close = -1
    for (let i = open + 1; i < seq.length; i++) {
      if (isMark(seq[i], braceOpen)) depth++
      else if (isMark(seq[i], braceClose)) {
        if (depth === 0) {
          close = i
          break
        }
        depth--
      } else if (depth === 0 && isMark(seq[i], braceComma)) commas.push(i)
    }
    if (close < 0) continue
    if (commas.length > 0) {
      const bounds = [open, ...commas, close]
      return { open, close, alts: bounds.slice(1).map((end, k) => seq.slice((bounds[k] as number) + 1, end)) }
    }
    const inner = seq.slice(open + 1, close)
    const only = inner[0]
    if (inner.length === 1 && only && !('mark' in only) && !only.split) {
      const range = expandRange(only.text)
      if (range) return { open, close, alts: range.map((text) => [{ text, split: false, keep: true }]) }
    }
  }
  return null
}

function isMark(seg: Seg | undefined, mark: string): boolean {
  return seg !== undefined && 'mark' in seg && seg.mark === mark
}

/** `1..5`, `05..10..2`, `a..e`: the values, or null (not a range, or more than the bound). */
function expandRange(text: string): string[] | null {
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(text)
  if (!m) return null
  const [, a = '', b = '', stepText] = m
  const numeric = /\d/.test(a)
  if (numeric !== /\d/.test(b)) return null
  const from = numeric ? Number(a) : a.charCodeAt(0)
  const to = numeric ? Number(b) : b.charCodeAt(0)
  const step = Math.abs(Number(stepText ?? 1)) || 1
  if (Math.abs(to - from) / step + 1 > maxBraceWords) return null
  const width = numeric && (/^-?0\d/.test(a) || /^-?0\d/.test(b)) ? Math.max(a.length, b.length) : 0
  const out: string[] = []
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) {
    out.push(
      numeric
        ? width
          ? String(Math.abs(v))
              .padStart(width - (v < 0 ? 1 : 0), '0')
              .replace(/^/, v < 0 ? '-' : '')
          : String(v)
        : String.fromCharCode(v)
    )
  }
  return out
}
