import { describe, expect, it } from 'vitest'
import { callHidesText, callTexts, chainStanding, hasOutput, inputFields, outputNotes, providerFacts, resultText, verificationText } from './call-facts'

const stream = { text: 'x', truncated: false, logFile: null, sha256: null }

describe('call facts', () => {
  it('flags a call whose tool, input (keys and strings, nested) or error hides characters; LF and TAB are layout', () => {
    const row = { tool: 'write_file', inputSummary: { path: 'notes.md', content: 'line\n\tindented' }, error: null }
    expect(callTexts(row)).toEqual(['write_file', 'path', 'notes.md', 'content', 'line\n\tindented'])
    expect(callHidesText(row)).toBe(false)
    expect(callHidesText({ ...row, inputSummary: { files: [{ name: 'a.py', text: 'print(1) # \u202e' }] } })).toBe(true)
    expect(callHidesText({ ...row, inputSummary: { ['ke\u200by']: 1 } })).toBe(true)
    expect(callHidesText({ ...row, error: { code: 'x', message: 'failed \x1b[2K' } })).toBe(true)
    expect(callHidesText({ ...row, inputSummary: 'plain' })).toBe(false)
  })

  it('lays out input fields, blocks for code', () => {
    expect(inputFields({ path: 'a.py', content: 'a\nb' })).toEqual([
      { key: 'path', text: 'a.py', block: false },
      { key: 'content', text: 'a\nb', block: true }
    ])
    expect(inputFields(null)).toEqual([])
  })

  it('says where an output is kept and what is wrong with it', () => {
    expect(outputNotes(stream)).toEqual([])
    const notes = outputNotes({ ...stream, logFile: 'c.stdout', sha256: 'f'.repeat(64), problem: 'the log file changed' })
    expect(notes[0]!.text).toMatch(/^Over 64 KiB: kept in logs\/c\.stdout, 1 B, sha256 ffffffffffffffff…$/)
    expect(notes[1]).toEqual({ tone: 'bad', text: 'the log file changed' })
    expect(hasOutput({ ...stream, text: '' })).toBe(false)
    expect(hasOutput({ ...stream, text: '', truncated: true })).toBe(true)
  })

  it('arranges provider facts with the fallback and probes', () => {
    const facts = providerFacts({
      providerId: 'docker',
      isolation: { processContained: true, syscallsRestricted: false, mechanism: 'docker', networkMode: 'bridge' },
      preferenceFallback: true,
      fallback: { reason: 'bubblewrap has no network' },
      probes: [
        { providerId: 'bubblewrap', eligible: false, reason: 'no network' },
        { providerId: 'docker', eligible: true }
      ],
      handleId: 'h1'
    })!
    expect(facts.axes).toEqual([
      { label: 'process contained', on: true },
      { label: 'syscalls restricted', on: false }
    ])
    expect(facts.fallback).toBe('bubblewrap has no network')
    expect(facts.probes[0]).toEqual({ providerId: 'bubblewrap', eligible: false, reason: 'no network' })
    expect(facts.other).toEqual([['handleId', 'h1']])
    expect(providerFacts({ providerId: 'x', preferenceFallback: true })!.fallback).toBe('the preferred isolation was not available')
    expect(providerFacts(null)).toBeUndefined()
  })

  it('words a verification', () => {
    expect(verificationText({ ok: true, rows: 100117, head: 'abcdef0123456789ffff' })).toBe('Chain intact: 100,117 rows check out; head abcdef0123456789…')
    expect(verificationText({ ok: false, rows: 4, brokenAt: { seq: 5, id: 'c5' }, reason: 'its contents do not match its hash' })).toBe(
      'Chain broken at row 5 (c5): its contents do not match its hash. 4 rows check out before it.'
    )
  })

  it('places one call against the last verification', () => {
    const chained = { seq: 10, chain: { chainSeq: 10, prevHash: 'p', hash: 'h' } }
    expect(chainStanding({ seq: 10, chain: null }, undefined).label).toBe('not chained')
    expect(chainStanding(chained, undefined).label).toBe('not verified')
    expect(chainStanding(chained, { ok: true, rows: 12 }).label).toBe('verified')
    expect(chainStanding(chained, { ok: true, rows: 9 }).label).toBe('not verified')
    expect(chainStanding(chained, { ok: false, rows: 9, brokenAt: { seq: 10, id: null }, reason: 'changed' })).toEqual({
      tone: 'bad',
      label: 'broken here',
      text: 'changed'
    })
    expect(chainStanding(chained, { ok: false, rows: 5, brokenAt: { seq: 6, id: null } }).label).toBe('after a break')
    expect(chainStanding(chained, { ok: false, rows: 20, brokenAt: { seq: 21, id: null } }).label).toBe('verified')
  })

  it('shows a result only when there is one', () => {
    expect(resultText({})).toBeUndefined()
    expect(resultText(null)).toBeUndefined()
    expect(resultText({ bytes: 3 })).toBe('{\n  "bytes": 3\n}')
  })
})
