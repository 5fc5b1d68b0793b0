import { AirlockError } from '@shared/errors'
import { randomUUID } from 'node:crypto'
import type { Database } from 'better-sqlite3'
import { classificationRank, type Classification, type SessionView } from '@shared/agents'
import type { SessionView as SessionListView } from '@shared/approvals'

type Row = {
  id: string
  agent_id: string
  transport: string
  taint: SessionView['taint']
  started_at: string
  last_seen_at: string | null
  ended_at: string | null
  end_reason: string | null
}

/** A session could not be recorded: its agent does not exist (removed meanwhile). */
export class SessionRecordError extends AirlockError<'session.agent_not_found'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('session.agent_not_found', message, {}, options)
  }
}

/** The reason recorded for sessions a crash left open, ended at the next start. */
export const interruptedReason = 'interrupted'

/**
 * Agent sessions (SPEC §6.1): one row from the moment an agent connects until it leaves, with the
 * last time it was seen and why it ended. Also the `SessionLedger` the agent sessions write to.
 */
export class SessionRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date()
  ) {}

  /** Records a new open session of an agent and returns its id (a UUID). */
  start(agentId: string, transport: string): string {
    const id = randomUUID()
    const at = this.now().toISOString()
    const result = this.db
      .prepare(
        `insert into sessions (id, agent_id, transport, started_at, last_seen_at)
         select ?, id, ?, ?, ? from agents where id = ?`
      )
      .run(id, transport, at, at, agentId)
    if (result.changes !== 1) throw new SessionRecordError(`Cannot start a session: there is no agent ${agentId}.`)
    return id
  }

  /** Notes that an open session was just used; an ended or unknown session is left alone. */
  touch(sessionId: string): void {
    this.db.prepare('update sessions set last_seen_at = ? where id = ? and ended_at is null').run(this.now().toISOString(), sessionId)
  }

  /** Ends an open session with a reason; returns false when it was not open (ending twice is harmless). */
  end(sessionId: string, reason: string): boolean {
    const at = this.now().toISOString()
    return this.db.prepare('update sessions set ended_at = ?, end_reason = ? where id = ? and ended_at is null').run(at, reason, sessionId).changes === 1
  }

  /**
   * Ends every session still open with reason `interrupted`: the host calls this at start-up,
   * before it accepts connections, so what a crash left open is closed. Returns how many.
   */
  endInterrupted(): number {
    const at = this.now().toISOString()
    return this.db.prepare('update sessions set ended_at = ?, end_reason = ? where ended_at is null').run(at, interruptedReason).changes
  }

  /** Keeps the `initialize` an MCP client opened the session with (JSON), so the session can be resumed after a restart. */
  saveMcpInitialize(sessionId: string, initialize: string): void {
    this.db.prepare('update sessions set mcp_initialize = ? where id = ?').run(initialize, sessionId)
  }

  /**
   * An MCP session a restart ended (`shutdown`, or `interrupted` by a crash) no longer ago than
   * `withinMs`, of this agent: what its client opened it with, or undefined when it cannot resume.
   */
  resumable(sessionId: string, agentId: string, withinMs: number): { initialize: string } | undefined {
    const row = this.db.prepare('select agent_id, transport, ended_at, end_reason, mcp_initialize from sessions where id = ?').get(sessionId) as
      | { agent_id: string; transport: string; ended_at: string | null; end_reason: string | null; mcp_initialize: string | null }
      | undefined
    if (!row || row.agent_id !== agentId || row.transport !== 'mcp-http' || !row.mcp_initialize || row.ended_at === null) return undefined
    if (row.end_reason !== 'shutdown' && row.end_reason !== interruptedReason) return undefined
    if (this.now().getTime() - Date.parse(row.ended_at) > withinMs) return undefined
    return { initialize: row.mcp_initialize }
  }

  /** Opens a session a restart ended again (`resumable` said it may); false when it was not ended. */
  reopen(sessionId: string): boolean {
    return (
      this.db
        .prepare('update sessions set ended_at = null, end_reason = null, last_seen_at = ? where id = ? and ended_at is not null')
        .run(this.now().toISOString(), sessionId).changes === 1
    )
  }

  /** The session's working directory (workspace-relative, '' for its root), kept across restarts. */
  cwd(sessionId: string): string {
    return (this.db.prepare('select cwd from sessions where id = ?').pluck().get(sessionId) as string | undefined) ?? ''
  }

  setCwd(sessionId: string, cwd: string): void {
    this.db.prepare('update sessions set cwd = ? where id = ?').run(cwd, sessionId)
  }

  /** A session's taint (SPEC §6.3); a session not recorded is `PUBLIC`. */
  taint(sessionId: string): Classification {
    const taint = this.db.prepare('select taint from sessions where id = ?').pluck().get(sessionId) as Classification | undefined
    return taint ?? 'PUBLIC'
  }

  /**
   * Raises a session's taint to `level` if that is higher; never lowers it. Written at once, so a
   * crash cannot forget what a session read. Returns the taint after.
   */
  raiseTaint(sessionId: string, level: Classification): Classification {
    return this.db.transaction(() => {
      const current = this.taint(sessionId)
      if (classificationRank(level) <= classificationRank(current)) return current
      this.db.prepare('update sessions set taint = ? where id = ?').run(level, sessionId)
      return level
    })()
  }

  /** One session, or undefined. */
  get(sessionId: string): SessionView | undefined {
    const row = this.db.prepare('select * from sessions where id = ?').get(sessionId) as Row | undefined
    return row ? viewOf(row) : undefined
  }

  /** An agent's sessions, newest first (at most `limit`, default 100, up to 1000). */
  listByAgent(agentId: string, options: { limit?: number } = {}): SessionView[] {
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? 100), 1), 1000)
    const rows = this.db.prepare('select * from sessions where agent_id = ? order by started_at desc, rowid desc limit ?').all(agentId, limit) as Row[]
    return rows.map(viewOf)
  }

  /**
   * An agent's sessions started before `before` (ISO), newest first, with the client each named in
   * its MCP `initialize` (`clientInfo.name` and version; null for other transports): the timeline's.
   */
  startedBefore(agentId: string, before: string, limit: number): (SessionView & { client: string | null })[] {
    const rows = this.db
      .prepare('select * from sessions where agent_id = ? and started_at < ? order by started_at desc, rowid desc limit ?')
      .all(agentId, before, limit) as (Row & { mcp_initialize?: string | null })[]
    return rows.map((row) => ({ ...viewOf(row), client: clientOf(row.mcp_initialize ?? null) }))
  }

  /** Sessions newest first, of one agent or all, only open or only ended ones when `open` says (at most `limit`, default 200, up to 1000). */
  list(options: { agentId?: string; open?: boolean; limit?: number } = {}): SessionListView[] {
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? 200), 1), 1000)
    const where = [
      options.agentId === undefined ? '' : 'agent_id = @agentId',
      options.open === undefined ? '' : options.open ? 'ended_at is null' : 'ended_at is not null'
    ].filter(Boolean)
    const rows = this.db
      .prepare(`select * from sessions ${where.length > 0 ? `where ${where.join(' and ')}` : ''} order by started_at desc, rowid desc limit @limit`)
      .all({ ...(options.agentId === undefined ? {} : { agentId: options.agentId }), limit }) as Row[]
    return rows.map((row) => ({ ...viewOf(row), open: row.ended_at === null }))
  }
}

function viewOf(row: Row): SessionView {
  return {
    id: row.id,
    agentId: row.agent_id,
    transport: row.transport,
    taint: row.taint,
    startedAt: row.started_at,
    lastSeenAt: row.last_seen_at,
    endedAt: row.ended_at,
    endReason: row.end_reason
  }
}

/** The client an MCP `initialize` named (`clientInfo.name version`), or null; whatever the client sent is only text. */
function clientOf(initialize: string | null): string | null {
  if (!initialize) return null
  try {
    const info = (JSON.parse(initialize) as { params?: { clientInfo?: { name?: unknown; version?: unknown } } }).params?.clientInfo
    if (typeof info?.name !== 'string') return null
    return `${info.name}${typeof info.version === 'string' ? ` ${info.version}` : ''}`.slice(0, 200)
  } catch {
    return null
  }
}
