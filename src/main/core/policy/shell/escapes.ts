/** Quote and escape removal, as bash does it in each quoting context. */

/** Unquoted text: a backslash quotes the next character; backslash-newline disappears. */
export function unescapeUnquoted(text: string): string {
  return text.replace(/\\(\n|[\s\S])/g, (_, ch: string) => (ch === '\n' ? '' : ch))
}

/** Inside double quotes a backslash only quotes `$`, `` ` ``, `"`, `\` and newline. */
export function unescapeDouble(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, ch: string) => (ch === '\n' ? '' : ch))
}

export function unescapeHeredoc(text: string): string {
  return text.replace(/\\([$`\\\n])/g, (_, ch: string) => (ch === '\n' ? '' : ch))
}

const simpleEscapes: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?'
}

/** Decodes the body of `$'…'`: `\xHH`, `\NNN` (octal), `\uHHHH`, `\UHHHHHHHH`, `\cX`, `\n`… */
export function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c[\s\S]|[\s\S])/g, (all, esc: string) => {
    const head = esc[0] ?? ''
    if (head === 'x') return String.fromCharCode(parseInt(esc.slice(1), 16))
    if (head === 'u' || head === 'U') {
      const code = parseInt(esc.slice(1), 16)
      return code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : ''
    }
    if (/[0-7]/.test(head)) return String.fromCharCode(parseInt(esc, 8) & 0xff)
    if (head === 'c' && esc.length === 2) return String.fromCharCode(esc.charCodeAt(1) & 0x1f)
    return simpleEscapes[esc] ?? all
  })
}
