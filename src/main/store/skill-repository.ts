import type { Database } from 'better-sqlite3'
import { skillIdOf, skillManifestSchema, type SkillProposal, type SkillRevisionRecord, type SkillState } from '@shared/skills'

type Row = {
  agent_id: string
  name: string
  revision: number
  content_hash: string
  manifest_json: string
  state: SkillState
  created_at: string
  decided_at: string | null
  decision_reason: string | null
}

const columns = 'agent_id, name, revision, content_hash, manifest_json, state, created_at, decided_at, decision_reason'

/**
 * Skill revisions (SPEC §6.4, table `skill_revisions`): per agent and skill name, numbered from 1,
 * each with its content hash, its manifest (entry, language, files) and its state. This is what an
 * approval is about, kept out of the agent's reach (the workspace copy is the agent's to change).
 * A decided revision never changes state: `decide` only moves `pending_approval`. A row whose
 * manifest no longer validates (a hand-edited database) is left out of every read, so it never runs.
 */
export class SkillRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date()
  ) {}

  /** Every revision of an agent's skill, newest first. */
  revisions(agentId: string, name: string): SkillRevisionRecord[] {
    const rows = this.db.prepare(`select ${columns} from skill_revisions where agent_id = ? and name = ? order by revision desc`).all(agentId, name) as Row[]
    return readable(rows)
  }

  /** Every revision of every skill of an agent, by name, newest revision first. */
  listByAgent(agentId: string): SkillRevisionRecord[] {
    const rows = this.db.prepare(`select ${columns} from skill_revisions where agent_id = ? order by name, revision desc`).all(agentId) as Row[]
    return readable(rows)
  }

  /** One revision, or undefined. */
  get(agentId: string, name: string, revision: number): SkillRevisionRecord | undefined {
    const row = this.db.prepare(`select ${columns} from skill_revisions where agent_id = ? and name = ? and revision = ?`).get(agentId, name, revision) as
      | Row
      | undefined
    return row ? readable([row])[0] : undefined
  }

  /**
   * Records content as the next revision, `pending_approval`; the same content hash as an existing
   * revision is that revision (`created: false`), whatever its state: content the operator rejected
   * stays rejected (the agent must change it), and is not put before the operator again as new.
   * One transaction, so two proposals of the same content make one revision.
   */
  propose(agentId: string, name: string, proposal: SkillProposal): { revision: SkillRevisionRecord; created: boolean } {
    const manifest = skillManifestSchema.parse(proposal.manifest)
    return this.db.transaction(() => {
      const same = this.db
        .prepare(`select ${columns} from skill_revisions where agent_id = ? and name = ? and content_hash = ? order by revision desc limit 1`)
        .get(agentId, name, proposal.contentHash) as Row | undefined
      const existing = same ? readable([same])[0] : undefined
      if (existing) return { revision: existing, created: false }
      const last = this.db.prepare('select max(revision) from skill_revisions where agent_id = ? and name = ?').pluck().get(agentId, name) as number | null
      const revision = (last ?? 0) + 1
      this.db
        .prepare(
          `insert into skill_revisions (id, agent_id, name, revision, description, content_hash, manifest_json, state, created_at)
           values (?, ?, ?, ?, ?, ?, ?, 'pending_approval', ?)`
        )
        .run(
          `${skillIdOf(agentId, name)}@${revision}`,
          agentId,
          name,
          revision,
          manifest.description,
          proposal.contentHash,
          JSON.stringify(manifest),
          this.now().toISOString()
        )
      return { revision: this.get(agentId, name, revision) as SkillRevisionRecord, created: true }
    })()
  }

  /** Decides a revision that waits; returns it decided, or undefined when it does not exist or was already decided. */
  decide(agentId: string, name: string, revision: number, state: 'approved' | 'rejected', reason?: string): SkillRevisionRecord | undefined {
    const changed = this.db
      .prepare(
        `update skill_revisions set state = ?, decided_at = ?, decision_reason = ? where agent_id = ? and name = ? and revision = ? and state = 'pending_approval'`
      )
      .run(state, this.now().toISOString(), reason ?? null, agentId, name, revision).changes
    return changed === 1 ? this.get(agentId, name, revision) : undefined
  }

  /** Forgets every revision of an agent (it was removed): a new agent with the same id starts with no approvals. */
  removeAgent(agentId: string): number {
    return this.db.prepare('delete from skill_revisions where agent_id = ?').run(agentId).changes
  }
}

function readable(rows: Row[]): SkillRevisionRecord[] {
  const records: SkillRevisionRecord[] = []
  for (const row of rows) {
    let manifest: unknown
    try {
      manifest = JSON.parse(row.manifest_json)
    } catch {
      continue
    }
    const parsed = skillManifestSchema.safeParse(manifest)
    if (!parsed.success) continue
    records.push({
      skillId: skillIdOf(row.agent_id, row.name),
      agentId: row.agent_id,
      name: row.name,
      revision: row.revision,
      contentHash: row.content_hash,
      state: row.state,
      manifest: parsed.data,
      createdAt: row.created_at,
      decidedAt: row.decided_at,
      reason: row.decision_reason
    })
  }
  return records
}
