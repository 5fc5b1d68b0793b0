import { describe, expect, it } from 'vitest'
import { visibleJson, visibleText } from './visible-text'

describe('visible text for the terminal', () => {
  it('shows C0, DEL, C1 and the bidi and invisible format characters as escapes', () => {
    expect(visibleText('a\u001b[2Kb\u0007c\td\ne\u007f\u009b')).toBe('a\\x1b[2Kb\\x07c\\x09d\\x0ae\\x7f\\x9b')
    expect(visibleText('x\u202etxt.exe\u2066\u200b\ufeff\u061c\u2028')).toBe('x\\u202etxt.exe\\u2066\\u200b\\ufeff\\u061c\\u2028')
    expect(visibleText('plain text, ünïcode ✓ and 中文')).toBe('plain text, ünïcode ✓ and 中文')
  })

  it('JSON keeps its value and escapes what JSON.stringify leaves raw', () => {
    const value = { summary: 'a\u001b\u009b\u202e\u2069b', n: 1 }
    const json = visibleJson(value)
    // eslint-disable-next-line no-control-regex -- the control characters are what this looks for
    expect(json).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
    expect(json).toContain('\\u009b')
    expect(JSON.parse(json)).toEqual(value)
  })
})
