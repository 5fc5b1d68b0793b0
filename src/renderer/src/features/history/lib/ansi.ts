import Anser from 'anser'

/** The eight ANSI colours; bright variants and palette entries 0–15 fold onto them. */
export type AnsiColor = 'black' | 'red' | 'green' | 'yellow' | 'blue' | 'magenta' | 'cyan' | 'white'

/** A run of text with one style. Colours are names the stylesheet maps to theme tokens (never inline colours). */
export type AnsiSegment = { text: string; fg?: AnsiColor; bg?: AnsiColor; bold?: true; dim?: true; italic?: true; underline?: true; strike?: true }

/** One line of output as styled runs. */
export type AnsiLine = AnsiSegment[]

const colorNames: readonly AnsiColor[] = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white']

/** `ansi-red`, `ansi-bright-red` → `red`; 256-colour and true-colour values have no theme token and stay default. */
function colorOf(cls: string | null): AnsiColor | undefined {
  if (!cls) return undefined
  const name = cls.replace(/^ansi-(bright-)?/, '')
  return (colorNames as readonly string[]).includes(name) ? (name as AnsiColor) : undefined
}

/**
 * A control sequence with 32 or more parameter bytes: no real SGR needs that many, and anser's
 * parser is quadratic in them (one `ESC[` + 128 Ki `;` + `m` from an agent's stdout froze the
 * drawer for seconds), so such sequences are dropped before parsing, like any unknown sequence.
 */
// eslint-disable-next-line no-control-regex -- ESC is what this looks for
const overlongSequence = /\x1b\[[\x20-\x3f]{32,}[\x40-\x7e]?/g

/**
 * Splits terminal output into lines of styled runs: SGR colours and decorations through anser
 * (styles carry across lines, as in a terminal), other CSI sequences dropped, CRLF endings taken
 * as LF. Every other carriage return stays in the text: a terminal would let what follows it
 * overwrite what came before (`rm -rf ~\rAll tests passed`), so the line keeps both and the
 * console shows the `\r` escaped (`TextAgent`), like any control character anser left (an OSC or
 * a lone ESC). The result is plain data for React to render as text: nothing is ever parsed as HTML.
 */
export function ansiLines(text: string): AnsiLine[] {
  const lines: AnsiLine[] = [[]]
  for (const entry of Anser.ansiToJson(text.replace(overlongSequence, ''), { use_classes: true, remove_empty: true })) {
    const style: Omit<AnsiSegment, 'text'> = {}
    const fg = colorOf(entry.fg)
    const bg = colorOf(entry.bg)
    if (fg) style.fg = fg
    if (bg) style.bg = bg
    for (const decoration of entry.decorations) {
      if (decoration === 'bold') style.bold = true
      else if (decoration === 'dim') style.dim = true
      else if (decoration === 'italic') style.italic = true
      else if (decoration === 'underline') style.underline = true
      else if (decoration === 'strikethrough') style.strike = true
    }
    const parts = entry.content.split('\n')
    parts.forEach((part, index) => {
      if (index > 0) lines.push([])
      if (part) lines[lines.length - 1]!.push({ text: part, ...style })
    })
  }
  if (lines.length > 1 && lines[lines.length - 1]!.length === 0) lines.pop()
  return lines.map(withoutLineEnding)
}

/** A line without the `\r` of a CRLF ending (layout, not text); any other `\r` stays where it is. */
function withoutLineEnding(line: AnsiLine): AnsiLine {
  const last = line[line.length - 1]
  if (last?.text.endsWith('\r')) line[line.length - 1] = { ...last, text: last.text.slice(0, -1) }
  return line.filter((segment) => segment.text.length > 0)
}

/** The plain text of a line (for copying and searching). */
export function lineText(line: AnsiLine): string {
  return line.map((segment) => segment.text).join('')
}

/** The class names of a styled run, mapped to theme colours in history.css. */
export function segmentClass(segment: AnsiSegment): string | undefined {
  const names: string[] = []
  if (segment.fg) names.push(`ansi-fg-${segment.fg}`)
  if (segment.bg) names.push(`ansi-bg-${segment.bg}`)
  if (segment.bold) names.push('ansi-bold')
  if (segment.dim) names.push('ansi-dim')
  if (segment.italic) names.push('ansi-italic')
  if (segment.underline) names.push('ansi-underline')
  if (segment.strike) names.push('ansi-strike')
  return names.length > 0 ? names.join(' ') : undefined
}
