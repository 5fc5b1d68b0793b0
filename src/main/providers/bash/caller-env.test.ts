import { describe, expect, it } from 'vitest'
import { admitCallerEnv } from './caller-env'

describe('caller environment allowlist (host runner)', () => {
  it('passes presentation settings unchanged', () => {
    const env = { LANG: 'de_DE.UTF-8', LC_ALL: 'C', TZ: 'America/Argentina/Buenos_Aires', TERM: 'xterm-256color', COLUMNS: '120', NO_COLOR: '1' }
    expect(admitCallerEnv(env)).toEqual(env)
    expect(admitCallerEnv({ TZ: 'EST5EDT,M3.2.0,M11.1.0' })).toEqual({ TZ: 'EST5EDT,M3.2.0,M11.1.0' })
  })

  it('refuses every other variable, naming all of them, and drops none silently', () => {
    expect(() => admitCallerEnv({ LANG: 'C', LD_LIBRARY_PATH: '/w', GCONV_PATH: '/w', RIPGREP_CONFIG_PATH: '/w' })).toThrow(
      /environment variables LD_LIBRARY_PATH, GCONV_PATH, RIPGREP_CONFIG_PATH are not accepted/
    )
    expect(() => admitCallerEnv({ POSIXLY_CORRECT: '1' })).toThrow(/POSIXLY_CORRECT is not accepted/)
  })

  const badValues: [string, string][] = [
    ['TZ', '/etc/shadow'],
    ['TZ', 'Europe/../../../etc/shadow'],
    ['LANG', '../../tmp/locale'],
    ['LC_MESSAGES', 'C/x'],
    ['COLUMNS', '80; rm'],
    ['TERM', '../../w/terminfo']
  ]
  for (const [name, value] of badValues) {
    it(`refuses ${name}=${value}: a value that could name a file`, () => {
      expect(() => admitCallerEnv({ [name]: value })).toThrow(new RegExp(`environment variable ${name} must be`))
    })
  }

  it('refuses malformed names with a typed error', () => {
    expect(() => admitCallerEnv({ 'BAD NAME': 'x' })).toThrow(
      expect.objectContaining({ code: 'shell.command_refused', message: expect.stringMatching(/not a valid name/) })
    )
  })
})
