import { hiddenCharacterName } from './hidden-character-names'

/**
 * Text an agent wrote, made safe to show to the operator: in the CLI (a terminal acts on control
 * characters) and in the console (bidi overrides reorder what a line reads as: Trojan Source).
 *
 * Characters a terminal acts on or a reader cannot see: C0 controls (ESC starts escape sequences,
 * BEL, CR, BS, even TAB and LF inside one printed line), DEL, C1 controls (U+009B is CSI on some
 * terminals), and the invisible or bidi format characters that make text read differently from
 * what it is: the soft hyphen, the combining grapheme joiner, ALM (U+061C), the Hangul, Khmer and
 * Mongolian fillers that draw nothing, zero-width characters and the LRM/RLM marks
 * (U+200B–U+200F), line and paragraph separators and the bidi embeddings and overrides
 * (U+2028–U+202E), word joiner, invisible operators and the bidi isolates (U+2060–U+206F), the
 * BOM (U+FEFF), interlinear annotations (U+FFF9–U+FFFB) and the tag characters
 * (U+E0000–U+E007F, which spell ASCII nobody sees). Variation selectors are left alone: emoji need them.
 */
const formatCharacters =
  '\\u007f-\\u009f\\u00ad\\u061c\\u115f\\u1160\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}'
// Combining marks that draw nothing (CGJ, the Khmer inherent vowels) stand alone: inside a
// character class they would read as combined with the character before them.
const invisibleMarks = '|\\u034f|\\u17b4|\\u17b5'
const unsafe = new RegExp(`[\\u0000-\\u001f${formatCharacters}]${invisibleMarks}`, 'gu')
/** `unsafe` but TAB and LF: in a block that keeps its lines (stdout, a diff, code) they are layout. */
const unsafeInBlock = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f${formatCharacters}]${invisibleMarks}`, 'gu')
// Without the global flag, for a test or a first match that keeps no state between calls.
const unsafeOnce = new RegExp(unsafe.source, 'u')
const unsafeInBlockOnce = new RegExp(unsafeInBlock.source, 'u')
/** `unsafe` but C0, which JSON escapes in strings itself (and whose LF lays out the document). */
const unsafeInJson = new RegExp(`[${formatCharacters}]${invisibleMarks}`, 'gu')

/** The first character of `unsafe` in `text`, or undefined (a name holding one is refused where names are made). */
export function firstHiddenCharacter(text: string): string | undefined {
  return unsafeOnce.exec(text)?.[0]
}

/** A character as an escape anyone can read: `\x1b`, `\u202e`, `\u{e0061}`. */
function escaped(char: string): string {
  const code = char.codePointAt(0)!
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * One line of text as the CLI prints it and the console shows names: every character of `unsafe` shown as its escape, so
 * what an agent wrote (a summary, a command word, a rule's description) can neither drive the
 * operator's terminal nor hide or reorder what is printed next to it. Multi-line text is split by
 * the caller first; a newline inside one line shows as `\x0a`. For a title or an aria-label in
 * the console (attributes cannot carry a highlight); the console draws text with `visibleSegments`.
 */
export function visibleText(text: string): string {
  return text.replace(unsafe, escaped)
}

/**
 * JSON for a terminal: `JSON.stringify` escapes C0 controls but not DEL, C1 or the format
 * characters; these become `\u00XX` escapes too (a tag character as its surrogate pair). The
 * result is the same JSON value (the characters only occur inside strings), so scripts read what
 * they always read.
 */
export function visibleJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(unsafeInJson, (char) =>
    [...Array(char.length).keys()].map((at) => `\\u${char.charCodeAt(at).toString(16).padStart(4, '0')}`).join('')
  )
}

/** How text is laid out where it is shown: `multiline` keeps LF and TAB as layout (a `<pre>`, a log, a diff line). */
export type VisibleTextOptions = { multiline?: boolean }

/**
 * A run of agent text as the console draws it: `text` as it is, or one hidden character, drawn as
 * its escape (`text`: `\u202e`) and marked, with its code point and name for the hover
 * (`label`: `U+202E RIGHT-TO-LEFT OVERRIDE`). `layout` is set for LF and TAB escaped on one line:
 * whitespace made visible, not a character that hides anything.
 */
export type VisibleSegment = { kind: 'text'; text: string } | { kind: 'hidden'; text: string; codePoint: number; label: string; layout: boolean }

/**
 * Splits agent text into what is drawn as it is and the hidden characters drawn escaped, in order;
 * joining the segments' `text` gives `visibleText(text)` (in `multiline` mode with LF and TAB kept).
 */
export function visibleSegments(text: string, options: VisibleTextOptions = {}): VisibleSegment[] {
  const segments: VisibleSegment[] = []
  let from = 0
  for (const match of text.matchAll(options.multiline ? unsafeInBlock : unsafe)) {
    if (match.index > from) segments.push({ kind: 'text', text: text.slice(from, match.index) })
    const codePoint = match[0].codePointAt(0)!
    segments.push({
      kind: 'hidden',
      text: escaped(match[0]),
      codePoint,
      label: hiddenCharacterLabel(codePoint),
      layout: codePoint === 0x09 || codePoint === 0x0a
    })
    from = match.index + match[0].length
  }
  if (from < text.length) segments.push({ kind: 'text', text: text.slice(from) })
  return segments
}

/** A hidden character for people: `U+202E RIGHT-TO-LEFT OVERRIDE`. */
export function hiddenCharacterLabel(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')} ${hiddenCharacterName(codePoint)}`
}

/**
 * Whether agent text holds a character that hides or reorders what a reader sees (everything
 * `visibleText` escapes except LF and TAB, which are layout): what flags a request or a call.
 */
export function hasHiddenCharacters(text: string): boolean {
  return unsafeInBlockOnce.test(text)
}

/** The distinct hidden characters of some texts (LF and TAB not counted), in order of first appearance, with how often each occurs. */
export function hiddenCharactersIn(texts: Iterable<string>): { codePoint: number; label: string; count: number }[] {
  const found = new Map<number, number>()
  for (const text of texts) {
    for (const match of text.matchAll(unsafeInBlock)) {
      const codePoint = match[0].codePointAt(0)!
      found.set(codePoint, (found.get(codePoint) ?? 0) + 1)
    }
  }
  return [...found].map(([codePoint, count]) => ({ codePoint, label: hiddenCharacterLabel(codePoint), count }))
}
