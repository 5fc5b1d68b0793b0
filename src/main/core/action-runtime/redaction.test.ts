import { describe, expect, it } from 'vitest'
import { withoutEscapes } from '@shared/escape-sequences'
import { redacted, redactValue, replaceKnownSecrets } from './redaction'

const secret = 'canary-Zq7-secret-value'
const esc = '\u001b'

describe('known secrets printed with terminal escapes inside them', () => {
  it.each([
    ['a colour change in the middle', `token: canary-Zq7-${esc}[31msecret${esc}[0m-value done`],
    ['one colour per character', `${[...secret].map((c) => `${esc}[3${c.charCodeAt(0) % 8}m${c}`).join('')}${esc}[0m`],
    ['a hyperlink (OSC 8) around half of it', `canary-Zq7${esc}]8;;https://x.test/${esc}\\-secret-value${esc}]8;;${esc}\\`],
    ['cursor moves and bold', `${esc}[1mcanary${esc}[2K-Zq7-secret${esc}[1;1H-value`]
  ])('%s: the secret is gone, what is around it stays', (_, text) => {
    const out = replaceKnownSecrets(`before ${text} after`, [secret])
    expect(withoutEscapes(out)).not.toContain(secret)
    expect(out).toContain(redacted)
    expect(out.startsWith('before ')).toBe(true)
    expect(out.endsWith(' after')).toBe(true)
  })

  it('counts each replacement, merges two secrets that share characters, and leaves text without escapes as the plain search left it', () => {
    const heard: number[] = []
    expect(replaceKnownSecrets(`a canary-${esc}[1mZq7-secret-value b canary-Zq7-s${esc}[0mecret-value c`, [secret], (count) => heard.push(count))).toBe(
      `a ${redacted} b ${redacted} c`
    )
    expect(heard).toEqual([2])
    expect(replaceKnownSecrets(`x abcdef${esc}[1mghij y`, ['abcdefgh', 'efghij'])).toBe(`x ${redacted} y`)
    expect(replaceKnownSecrets('plain canary-Zq7-secret-value text', [secret])).toBe(`plain ${redacted} text`)
    expect(replaceKnownSecrets(`${esc}[31mred${esc}[0m and nothing secret`, [secret])).toBe(`${esc}[31mred${esc}[0m and nothing secret`)
  })

  it('as history records a result: stdout with the split secret is redacted in the recorded copy', () => {
    const recorded = redactValue({ stdout: `key=canary-Zq7${esc}[32m-secret-value\n`, exitCode: 0 }, { secrets: [secret] }) as { stdout: string }
    expect(recorded.stdout).toBe(`key=${redacted}\n`)
  })
})
