import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import { ruleMatcherSchema, type RuleMatcher, type RuleScope, type RuleView } from '@shared/approvals'

type Row = {
  id: string
  scope: RuleScope
  agent_id: string | null
  session_id: string | null
  matcher_json: string
  match_count: number
  created_at: string
  expires_at: string | null
  revoked_at: string | null
  risk_flags_json: string
  description: string
  last_matched_at: string | null
  approval_id: string | null
}

/** A rule to remember. */
export type NewRule = Pick<RuleView, 'id' | 'scope' | 'agentId' | 'sessionId' | 'matcher' | 'riskFlags' | 'description' | 'expiresAt' | 'approvalId'>

const columns =
  'id, scope, agent_id, session_id, matcher_json, match_count, created_at, expires_at, revoked_at, risk_flags_json, description, last_matched_at, approval_id'

/**
 * Active: not revoked, not past its expiry, and a session rule only while its session is open
 * (a session rule ends with its session, whatever a hand-edited row says).
 */
const active = `decision = 'allow' and revoked_at is null and (expires_at is null or expires_at > @now)
  and (scope != 'session' or exists (select 1 from sessions s where s.id = rules.session_id and s.ended_at is null))`

/**
 * Remembered grants (SPEC §7, table `rules`): who they apply to (session, agent or global), what
 * they match (a validated matcher), the risk flags they answer, their expiry and revocation, and
 * each match counted. Rows whose matcher no longer validates are left out of every read, so they
 * never match. An agent's rules go with it (foreign key, cascade).
 */
export class RuleRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date()
  ) {}

  /** Remembers a rule; returns it as stored. */
  insert(rule: NewRule): RuleView {
    const matcher = ruleMatcherSchema.parse(rule.matcher)
    this.db
      .prepare(
        `insert into rules (id, scope, agent_id, session_id, matcher_json, decision, match_count, created_at, expires_at, risk_flags_json, description, approval_id)
         values (?, ?, ?, ?, ?, 'allow', 0, ?, ?, ?, ?, ?)`
      )
      .run(
        rule.id,
        rule.scope,
        rule.agentId,
        rule.sessionId,
        JSON.stringify(matcher),
        this.now().toISOString(),
        rule.expiresAt,
        JSON.stringify(rule.riskFlags),
        rule.description,
        rule.approvalId
      )
    return this.get(rule.id)!
  }

  /** One rule, active or not, or undefined. */
  get(id: string): RuleView | undefined {
    const row = this.db.prepare(`select ${columns} from rules where id = ?`).get(id) as Row | undefined
    return row ? readable([row])[0] : undefined
  }

  /** Rules newest first: the active ones, or every one with `all`. */
  list(options: { all?: boolean; limit?: number } = {}): RuleView[] {
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? 500), 1), 5000)
    const where = options.all ? '' : `where ${active}`
    const rows = this.db
      .prepare(`select ${columns} from rules ${where} order by created_at desc, rowid desc limit @limit`)
      .all({ now: this.now().toISOString(), limit }) as Row[]
    return readable(rows)
  }

  /** The active rules that apply to a call of `agentId` in `sessionId`: its session's, its agent's, and global ones. */
  applicable(agentId: string, sessionId: string | null): RuleView[] {
    const rows = this.db
      .prepare(
        `select ${columns} from rules where ${active}
           and (scope = 'global' or (scope = 'agent' and agent_id = @agentId) or (scope = 'session' and agent_id = @agentId and session_id = @sessionId))
         order by created_at`
      )
      .all({ now: this.now().toISOString(), agentId, sessionId }) as Row[]
    return readable(rows)
  }

  /** Counts a match (and when), if the rule is still active. */
  recordMatch(id: string): boolean {
    const at = this.now().toISOString()
    return (
      this.db.prepare(`update rules set match_count = match_count + 1, last_matched_at = @at where id = @id and ${active}`).run({ id, at, now: at }).changes ===
      1
    )
  }

  /** Revokes a rule; false when there is none or it was already revoked. */
  revoke(id: string): boolean {
    return this.db.prepare('update rules set revoked_at = ? where id = ? and revoked_at is null').run(this.now().toISOString(), id).changes === 1
  }

  /** Edits a rule that is not revoked: its matcher and/or its expiry (null: none). False when it cannot change. */
  update(id: string, change: { matcher?: RuleMatcher; description?: string; expiresAt?: string | null }): boolean {
    const matcher = change.matcher === undefined ? undefined : JSON.stringify(ruleMatcherSchema.parse(change.matcher))
    return (
      this.db
        .prepare(
          `update rules set matcher_json = coalesce(@matcher, matcher_json), description = coalesce(@description, description),
             expires_at = case when @setExpiry then @expiresAt else expires_at end
           where id = @id and revoked_at is null`
        )
        .run({
          id,
          matcher: matcher ?? null,
          description: change.description ?? null,
          setExpiry: change.expiresAt === undefined ? 0 : 1,
          expiresAt: change.expiresAt ?? null
        }).changes === 1
    )
  }

  /** Ends the rules of a session that ended (they expire with it); returns how many. */
  expireSession(sessionId: string): number {
    const at = this.now().toISOString()
    return this.db
      .prepare("update rules set expires_at = ? where scope = 'session' and session_id = ? and revoked_at is null and (expires_at is null or expires_at > ?)")
      .run(at, sessionId, at).changes
  }

  /** A cheap summary of the table's state: it changes whenever a rule is made, edited, revoked or matched. */
  fingerprint(): string {
    const row = this.db
      .prepare("select count(*) as n, coalesce(sum(match_count), 0) as m, coalesce(max(revoked_at), '') as r, coalesce(max(created_at), '') as c from rules")
      .get() as Record<string, unknown>
    return JSON.stringify(row)
  }
}

function readable(rows: Row[]): RuleView[] {
  const views: RuleView[] = []
  for (const row of rows) {
    try {
      views.push({
        id: row.id,
        scope: row.scope,
        agentId: row.agent_id,
        sessionId: row.session_id,
        matcher: ruleMatcherSchema.parse(JSON.parse(row.matcher_json)),
        riskFlags: z.array(z.string()).parse(JSON.parse(row.risk_flags_json)),
        decision: 'allow',
        description: row.description,
        matchCount: row.match_count,
        lastMatchedAt: row.last_matched_at,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
        revokedAt: row.revoked_at,
        approvalId: row.approval_id
      })
    } catch {
      continue
    }
  }
  return views
}
