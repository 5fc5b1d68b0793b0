import { describe, expect, it } from 'vitest'
import { draftFromLabels, labelCount, labelsFromDraft } from './labels'

describe('classification label editor', () => {
  it('round-trips the setting through editor rows', () => {
    const labels = { paths: { 'secrets/**': 'RESTRICTED' as const }, domains: { '*.corp.example': 'INTERNAL' as const } }
    const draft = draftFromLabels(labels)
    expect(draft.paths).toEqual([{ pattern: 'secrets/**', level: 'RESTRICTED' }])
    expect(draft.databases).toEqual([])
    expect(labelCount(draft)).toBe(2)
    expect(labelsFromDraft(draft)).toEqual({ ok: true, value: labels })
    expect(draftFromLabels(null).mcpServers).toEqual([])
  })

  it("puts errors on the rows they belong to, with the shared schema's words", () => {
    const draft = draftFromLabels({})
    draft.domains = [
      { pattern: 'ok.example', level: 'PUBLIC' },
      { pattern: 'not a host!', level: 'INTERNAL' }
    ]
    draft.paths = [
      { pattern: 'a/**', level: 'PUBLIC' },
      { pattern: ' a/** ', level: 'CONFIDENTIAL' },
      { pattern: '', level: 'PUBLIC' }
    ]
    draft.mcpServers = [{ pattern: 'Bad Name', level: 'PUBLIC' }]
    const checked = labelsFromDraft(draft)
    expect(checked.ok).toBe(false)
    if (checked.ok) return
    expect(checked.errors['domains:1']).toBe('must be a host name or *.suffix')
    expect(checked.errors['domains:0']).toBeUndefined()
    expect(checked.errors['paths:1']).toBe('Listed twice (also row 1).')
    expect(checked.errors['paths:2']).toBe('Give a pattern, or remove the row.')
    expect(checked.errors['mcpServers:0']).toMatch(/Invalid string|match/i)
  })
})
