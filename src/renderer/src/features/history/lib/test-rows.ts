import type { HistoryRow } from '@shared/ipc/history'

/** A history row for tests: call `call-<seq>` of agent `coder`, a `read_file` that ended `status`. */
export function testRow(seq: number, status: HistoryRow['status'] = 'success', more: Partial<HistoryRow> = {}): HistoryRow {
  return {
    seq,
    id: `call-${seq}`,
    agentId: 'coder',
    sessionId: 's',
    tool: 'read_file',
    status,
    providerId: null,
    exitCode: null,
    durationMs: 1,
    waitMs: null,
    waitingSince: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: null,
    error: null,
    inputSummary: {},
    approval: null,
    ...more
  }
}
