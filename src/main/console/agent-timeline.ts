import type { HistoryRow } from '@shared/ipc/history'
import type { TimelineEntry } from '@shared/ipc/timeline'
import type { ActionCallRepository, CheckpointRepository, SessionRepository } from '../store'

/** What the timeline reads: sessions, history (rows and their recorded decisions, never their log files), checkpoints. */
export type AgentTimelineOptions = {
  sessions: Pick<SessionRepository, 'startedBefore'>
  history: Pick<ActionCallRepository, 'list' | 'get'>
  checkpoints: Pick<CheckpointRepository, 'list' | 'forCalls'>
}

/** The widest `what` of a call: the command or path, not the whole input. */
const whatChars = 300

/**
 * One agent's story, newest first (issue 27): its sessions as they connected and ended (with the
 * client each named), its calls with the policy's rule and flags, the approval and who answered,
 * and how many workspace entries each changed; changes found between calls as their own entries.
 * Everything comes from what is already recorded (sessions, history rows, checkpoints): the
 * timeline is a view, not a fourth record. The operator's reverts and restores are history rows
 * (`checkpoint.revert`, `checkpoint.restore`), so they appear as calls.
 */
export class AgentTimeline {
  constructor(private readonly options: AgentTimelineOptions) {}

  /** Up to `limit` entries before `before` (ISO; default now), newest first; `more` when older ones exist. */
  list(agentId: string, before: string | undefined, limit: number): { entries: TimelineEntry[]; more: boolean } {
    const until = before ?? new Date(Date.now() + 1000).toISOString()
    const entries: TimelineEntry[] = []
    for (const session of this.options.sessions.startedBefore(agentId, until, limit)) {
      entries.push({
        kind: 'session',
        at: session.startedAt,
        sessionId: session.id,
        change: 'connected',
        transport: session.transport,
        client: session.client,
        reason: null
      })
      if (session.endedAt && session.endedAt < until) {
        entries.push({
          kind: 'session',
          at: session.endedAt,
          sessionId: session.id,
          change: 'disconnected',
          transport: session.transport,
          client: session.client,
          reason: session.endReason
        })
      }
    }
    // `until` of a history query is inclusive: a millisecond earlier keeps the page boundary's row out.
    const rows = this.options.history.list({ agentId, until: new Date(Date.parse(until) - 1).toISOString(), limit }).rows
    const changed = this.options.checkpoints.forCalls(rows.map((row) => row.id))
    for (const row of rows) entries.push(this.callEntry(row, changed.get(row.id)?.files ?? null))
    for (const checkpoint of this.options.checkpoints.list(agentId, { limit })) {
      if (checkpoint.kind !== 'outside' || checkpoint.createdAt >= until) continue
      entries.push({
        kind: 'changes',
        at: checkpoint.createdAt,
        checkpointId: checkpoint.id,
        cause: 'outside',
        callId: null,
        files: checkpoint.files,
        note: checkpoint.note
      })
    }
    entries.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : order(a) - order(b)))
    return { entries: entries.slice(0, limit), more: entries.length > limit || rows.length === limit }
  }

  private callEntry(row: HistoryRow, changed: number | null): TimelineEntry {
    const policy = this.options.history.get(row.id)?.policy
    const rule = policy?.rule ?? null
    const riskFlags = policy?.riskFlags ?? []
    return {
      kind: 'call',
      at: row.startedAt,
      callId: row.id,
      sessionId: row.sessionId,
      tool: row.tool,
      what: whatOf(row),
      status: row.status,
      durationMs: row.durationMs,
      waitMs: row.waitMs,
      error: row.error,
      rule,
      riskFlags,
      approval: row.approval
        ? {
            status: row.approval.status,
            reason: row.approval.reason,
            ...(row.approval.scope ? { scope: row.approval.scope } : {}),
            ...(row.approval.ruleId ? { ruleId: row.approval.ruleId } : {})
          }
        : null,
      changed
    }
  }
}

/** At the same instant: a session connects before its calls, and ends after them. */
function order(entry: TimelineEntry): number {
  if (entry.kind !== 'session') return 1
  return entry.change === 'connected' ? 2 : 0
}

/** The one line that says what a call did: its command, path, database and statement, or a short form of its input. */
function whatOf(row: HistoryRow): string {
  const input = (typeof row.inputSummary === 'object' && row.inputSummary !== null ? row.inputSummary : {}) as Record<string, unknown>
  const text = (key: string) => (typeof input[key] === 'string' ? (input[key] as string) : undefined)
  if (row.tool === 'checkpoint.revert' || row.tool === 'checkpoint.restore') {
    const target = text('call') ?? `checkpoint ${text('checkpoint') ?? '?'}`
    return row.tool === 'checkpoint.revert' ? `reverted ${target}` : `restored the workspace to before ${target}`
  }
  const what =
    text('command') ??
    (text('sql') ? `${text('database') ?? ''}: ${text('sql')}` : undefined) ??
    text('path') ??
    text('url') ??
    (text('code') ? `${text('language') ?? ''} ${text('code')}`.trim() : undefined)
  const line = what ?? JSON.stringify(row.inputSummary ?? {})
  return line.length > whatChars ? `${line.slice(0, whatChars)}…` : line
}
