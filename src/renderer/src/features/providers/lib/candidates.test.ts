import { describe, expect, it } from 'vitest'
import { addableProviders, candidatesFromSetting, candidatesToSetting, configText, moveCandidate, parseConfigText } from './candidates'

describe('code-execution candidates', () => {
  it('reads ids and {providerId, config} and writes them back unchanged', () => {
    const setting = ['bubblewrap', { providerId: 'docker', config: { profile: 'strict', extraArgs: ['--cap-add', 'NET_ADMIN'] } }]
    const candidates = candidatesFromSetting(setting)
    expect(candidates).toEqual([{ providerId: 'bubblewrap' }, { providerId: 'docker', config: { profile: 'strict', extraArgs: ['--cap-add', 'NET_ADMIN'] } }])
    expect(candidatesToSetting(candidates)).toEqual(setting)
  })

  it('drops what is not a candidate and writes an empty config as a bare id', () => {
    expect(candidatesFromSetting('docker')).toEqual([])
    expect(candidatesFromSetting([3, null, { id: 'x' }, 'docker'])).toEqual([{ providerId: 'docker' }])
    expect(candidatesToSetting([{ providerId: 'docker', config: {} }])).toEqual(['docker'])
  })

  it('moves an entry and keeps every other in place, config travelling with it', () => {
    const list = [{ providerId: 'a' }, { providerId: 'b', config: { x: 1 } }, { providerId: 'c' }]
    expect(moveCandidate(list, 1, 0)).toEqual([{ providerId: 'b', config: { x: 1 } }, { providerId: 'a' }, { providerId: 'c' }])
    expect(moveCandidate(list, 0, 2).map((c) => c.providerId)).toEqual(['b', 'c', 'a'])
    expect(moveCandidate(list, 2, 9).map((c) => c.providerId)).toEqual(['a', 'b', 'c'])
    expect(moveCandidate(list, 0, -1).map((c) => c.providerId)).toEqual(['a', 'b', 'c'])
  })

  it('parses the config editor: empty is none, an object is a config, anything else says why', () => {
    expect(parseConfigText('  ')).toEqual({ ok: true })
    expect(parseConfigText('{}')).toEqual({ ok: true })
    expect(parseConfigText('{"profile":"strict"}')).toEqual({ ok: true, config: { profile: 'strict' } })
    const broken = parseConfigText('{"profile":')
    expect(broken.ok).toBe(false)
    expect(!broken.ok && broken.error).toMatch(/^Not valid JSON/)
    expect(parseConfigText('["docker"]')).toEqual({ ok: false, error: 'The config must be a JSON object, e.g. {"profile": "strict"}.' })
    expect(parseConfigText('null').ok).toBe(false)
    expect(configText({ a: 1 })).toBe('{\n  "a": 1\n}')
    expect(configText(undefined)).toBe('')
  })

  it('offers only registered code-execution providers that are not in the order', () => {
    const providers = [
      { providerId: 'bubblewrap', kinds: ['code_execution', 'bash'], probes: [] },
      { providerId: 'docker', kinds: ['code_execution', 'docker'], probes: [] },
      { providerId: 'trusted_local', kinds: ['code_execution', 'bash'], probes: [] },
      { providerId: 'sqlite', kinds: ['sqlite'], probes: [] }
    ]
    expect(addableProviders(providers, [{ providerId: 'bubblewrap' }, { providerId: 'docker' }])).toEqual(['trusted_local'])
  })
})
