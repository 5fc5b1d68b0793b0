import { describe, expect, it } from 'vitest'
import { inlineCodeParts } from './inline-code'

describe('inline code in descriptions', () => {
  it('splits backtick spans out as code, leaving the rest as text', () => {
    expect(inlineCodeParts('Port of the web console (used by `airlock serve`).')).toEqual([
      { code: false, text: 'Port of the web console (used by ' },
      { code: true, text: 'airlock serve' },
      { code: false, text: ').' }
    ])
    expect(inlineCodeParts('no code here')).toEqual([{ code: false, text: 'no code here' }])
    expect(inlineCodeParts('a lone ` tick')).toEqual([{ code: false, text: 'a lone ` tick' }])
  })
})
