import { describe, expect, it } from 'vitest'
import { handleTone, sortHandles } from './handle-facts'

describe('handle facts', () => {
  it('tones statuses', () => {
    expect(handleTone('ready')).toBe('ok')
    expect(handleTone('unhealthy')).toBe('bad')
    expect(handleTone('failed')).toBe('bad')
    expect(handleTone('pending_approval')).toBe('warn')
    expect(handleTone('ensuring')).toBe('info')
  })

  it('sorts newest first with a stable tie-break', () => {
    const handles = [
      { handleId: 'b', createdAt: '2026-01-01T00:00:00Z' },
      { handleId: 'c', createdAt: '2026-01-02T00:00:00Z' },
      { handleId: 'a', createdAt: '2026-01-01T00:00:00Z' }
    ]
    expect(sortHandles(handles).map((h) => h.handleId)).toEqual(['c', 'a', 'b'])
  })
})
