import { describe, expect, it } from 'vitest'
import { UsageError } from './cli-error'
import { parseCommandLine } from './parse-args'

const serveLike = { home: 'text', json: 'flag', help: 'flag', port: 'port', 'gateway-port': 'port', 'no-open': 'flag' } as const

describe('parseCommandLine', () => {
  it('reads flags, text, ports (separate or inline) and positionals into typed values', () => {
    expect(parseCommandLine(['--home', '/h', '--port=0', '--gateway-port', '7411', '--no-open', '--json', 'word'], serveLike)).toEqual({
      options: { home: '/h', port: 0, 'gateway-port': 7411, 'no-open': true, json: true },
      positionals: ['word']
    })
  })

  it('leaves absent options out and accepts -h for --help', () => {
    expect(parseCommandLine(['-h'], serveLike)).toEqual({ options: { help: true }, positionals: [] })
    expect(parseCommandLine([], serveLike)).toEqual({ options: {}, positionals: [] })
  })

  it('keeps every word after -- as a positional, even ones that look like options', () => {
    expect(parseCommandLine(['--json', '--', 'rm', '-rf', '--port', '/'], serveLike)).toEqual({
      options: { json: true },
      positionals: ['rm', '-rf', '--port', '/']
    })
  })

  it('takes a text value that starts with a dash only when given inline', () => {
    expect(parseCommandLine(['--home=-weird'], serveLike).options).toEqual({ home: '-weird' })
  })

  const refused: [string, string[], string][] = [
    ['an unknown long option', ['--frobnicate'], 'unknown option --frobnicate'],
    ['an unknown short option', ['-x'], 'unknown option -x'],
    ['an unknown short option grouped with a known one', ['-hx'], 'unknown option -x'],
    ['an option in the wrong case', ['--Port', '1'], 'unknown option --Port'],
    ['a text option without its value', ['--home'], '--home needs a value'],
    ['a text option followed by another option', ['--home', '--json'], '--home needs a value'],
    ['an empty inline text value', ['--home='], '--home needs a value'],
    ['a port option without its value', ['--gateway-port'], '--gateway-port needs a value'],
    ['a flag given a value', ['--json=yes'], '--json takes no value'],
    ['a negated flag given a value', ['--no-open=false'], '--no-open takes no value'],
    ['a port that is not a number', ['--port', 'eighty'], '--port must be a port number (0-65535), got "eighty"'],
    ['a port out of range', ['--gateway-port', '70000'], '--gateway-port must be a port number (0-65535), got "70000"'],
    ['a negative port given inline', ['--port=-1'], '--port must be a port number (0-65535), got "-1"'],
    ['a fractional port', ['--port', '80.5'], '--port must be a port number (0-65535), got "80.5"'],
    ['a port in hex', ['--gateway-port', '0x50'], '--gateway-port must be a port number (0-65535), got "0x50"'],
    ['an empty port', ['--port='], '--port must be a port number (0-65535), got ""']
  ]
  for (const [name, argv, message] of refused) {
    it(`refuses ${name} with one UsageError line`, () => {
      let thrown: unknown
      try {
        parseCommandLine(argv, serveLike)
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(UsageError)
      expect((thrown as UsageError).code).toBe('cli.usage')
      expect((thrown as UsageError).message).toBe(message)
    })
  }
})
