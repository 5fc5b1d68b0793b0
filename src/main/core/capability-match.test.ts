import { describe, expect, it } from 'vitest'
import { compareVersions, matchCapabilities } from './capability-match'

describe('capability matching', () => {
  const probe = {
    languages: ['python', 'nodejs'],
    toolchains: { python: { available: true, version: '3.11.2' }, go: { available: false } },
    isolation: { processContained: true, syscallsRestricted: false },
    arch: 'x64',
    features: { network: { modes: ['none', 'full'] } }
  }

  it('matches dicts as a recursive subset', () => {
    expect(matchCapabilities({ isolation: { processContained: true } }, probe)).toBeUndefined()
    expect(matchCapabilities({ features: { network: { modes: ['none'] } } }, probe)).toBeUndefined()
    expect(matchCapabilities({ isolation: { syscallsRestricted: true } }, probe)).toMatch(/isolation.syscallsRestricted/)
  })

  it('matches lists as a subset and scalars by membership in a list', () => {
    expect(matchCapabilities({ languages: ['nodejs', 'python'] }, probe)).toBeUndefined()
    expect(matchCapabilities({ languages: ['go'] }, probe)).toMatch(/missing \["go"\]/)
    expect(matchCapabilities({ languages: 'python' }, probe)).toBeUndefined()
  })

  it('treats language as languages and toolchain as toolchains', () => {
    expect(matchCapabilities({ language: 'nodejs' }, probe)).toBeUndefined()
    expect(matchCapabilities({ language: 'rust' }, probe)).toMatch(/language/)
    expect(matchCapabilities({ toolchain: { python: { minimumVersion: '3.10' } } }, probe)).toBeUndefined()
  })

  it('compares scalars by equality', () => {
    expect(matchCapabilities({ arch: 'x64' }, probe)).toBeUndefined()
    expect(matchCapabilities({ arch: 'arm64' }, probe)).toMatch(/arch/)
    expect(matchCapabilities({ gpu: true }, probe)).toMatch(/gpu/)
  })

  it('checks toolchain minimum and exact versions against the observed version', () => {
    expect(matchCapabilities({ toolchains: { python: { minimumVersion: '3.10' } } }, probe)).toBeUndefined()
    expect(matchCapabilities({ toolchains: { python: { minimumVersion: '3.12' } } }, probe)).toMatch(/3.11.2 is below 3.12/)
    expect(matchCapabilities({ toolchains: { python: { exactVersion: '3.11' } } }, probe)).toBeUndefined()
    expect(matchCapabilities({ toolchains: { python: { exactVersion: '3.11.3' } } }, probe)).toMatch(/is not 3.11.3/)
    expect(matchCapabilities({ toolchains: { go: { minimumVersion: '1.20' } } }, probe)).toMatch(/not available/)
  })

  it('orders dotted versions numerically', () => {
    expect(compareVersions('3.10.13', '3.9')).toBe(1)
    expect(compareVersions('3.10', '3.10.0')).toBe(0)
    expect(compareVersions('v18.19.1', '20')).toBe(-1)
  })
})
