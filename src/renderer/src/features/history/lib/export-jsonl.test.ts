import { describe, expect, it } from 'vitest'
import { exportFileName, jsonlOf } from './export-jsonl'
import { noFilters } from './filters'

describe('JSONL export', () => {
  it('writes one JSON object per line', () => {
    const text = jsonlOf([{ id: 'a' }, { id: 'b' }] as never)
    expect(text).toBe('{"id":"a"}\n{"id":"b"}\n')
    expect(
      text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).id)
    ).toEqual(['a', 'b'])
    expect(jsonlOf([])).toBe('')
  })

  it('names the file after when it was taken and its filters, safe for a file system', () => {
    const at = new Date(2026, 0, 2, 9, 5)
    expect(exportFileName(noFilters, at)).toBe('airlock-history-20260102-0905.jsonl')
    expect(exportFileName({ ...noFilters, status: 'error', agentId: 'coder', text: 'a/b c', since: '2026-01-01T00:00:00.000Z' }, at)).toBe(
      'airlock-history-20260102-0905-agent-coder-status-error-text-a_b_c.jsonl'
    )
  })
})
