import { describe, expect, it } from 'vitest'
import { describeSeconds, envNameError, parseNumberSetting } from './setting-input'

describe('setting inputs', () => {
  it("reads whole numbers and checks them with the setting's schema", () => {
    expect(parseNumberSetting('console.port', '8080')).toEqual({ ok: true, value: 8080 })
    expect(parseNumberSetting('console.port', ' 8080 ')).toEqual({ ok: true, value: 8080 })
    expect(parseNumberSetting('console.port', 'eighty')).toEqual({ ok: false, error: 'Enter a whole number.' })
    expect(parseNumberSetting('console.port', '1.5')).toEqual({ ok: false, error: 'Enter a whole number.' })
    const tooBig = parseNumberSetting('console.port', '70000')
    expect(tooBig.ok).toBe(false)
    expect(!tooBig.ok && tooBig.error).toMatch(/65535/)
    expect(parseNumberSetting('gateway.idle_timeout_seconds', '5').ok).toBe(false)
  })

  it('checks secret variable names', () => {
    expect(envNameError('OPENAI_API_KEY', [])).toBeUndefined()
    expect(envNameError('1BAD', [])).toMatch(/letters, digits/)
    expect(envNameError('A', ['A'])).toBe('A is already listed.')
  })

  it('describes durations', () => {
    expect(describeSeconds(45)).toBe('45 s')
    expect(describeSeconds(600)).toBe('600 s (10 min)')
    expect(describeSeconds(1800)).toBe('1800 s (30 min)')
    expect(describeSeconds(7200)).toBe('7200 s (2 h)')
  })
})
