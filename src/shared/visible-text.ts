/**
 * Text an agent wrote, made safe to show to the operator: in the CLI (a terminal acts on control
 * characters) and in the console (bidi overrides reorder what a name reads as).
 *
 * Characters a terminal acts on or hides rather than shows: C0 controls (ESC starts escape
 * sequences, BEL, CR, BS, even TAB and LF inside one printed line), DEL, C1 controls (U+009B is
 * CSI on some terminals), and the invisible or bidi format characters that make text read
 * differently from what it is: ALM (U+061C), zero-width characters and the LRM/RLM marks
 * (U+200B–U+200F), line and paragraph separators and the bidi embeddings and overrides
 * (U+2028–U+202E), word joiner, invisible operators and the bidi isolates (U+2060–U+206F), and the
 * BOM (U+FEFF).
 */
// eslint-disable-next-line no-control-regex -- the control characters are what this looks for
const unsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g

/** The first character of `unsafe` in `text`, or undefined (a name holding one is refused where names are made). */
export function firstHiddenCharacter(text: string): string | undefined {
  return new RegExp(unsafe.source).exec(text)?.[0]
}

/** A character as an escape anyone can read: `\x1b`, `\u202e`. */
function escaped(char: string): string {
  const code = char.charCodeAt(0)
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * One line of text as the CLI prints it and the console shows names: every character of `unsafe` shown as its escape, so
 * what an agent wrote (a summary, a command word, a rule's description) can neither drive the
 * operator's terminal nor hide or reorder what is printed next to it. Multi-line text is split by
 * the caller first; a newline inside one line shows as `\x0a`.
 */
export function visibleText(text: string): string {
  return text.replace(unsafe, escaped)
}

/**
 * JSON for a terminal: `JSON.stringify` escapes C0 controls but not DEL, C1 or the format
 * characters; these become `\u00XX` escapes too. The result is the same JSON value (the
 * characters only occur inside strings), so scripts read what they always read.
 */
export function visibleJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(unsafeInJson, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** `unsafe` but C0, which JSON escapes in strings itself (and whose LF lays out the document). */
const unsafeInJson = /[\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g
