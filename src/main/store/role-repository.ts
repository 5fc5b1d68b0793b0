import type { Database } from 'better-sqlite3'

/** A role row as stored. `defaults` is the parsed JSON, validated by the role service. */
export type RoleRecord = { id: string; name: string; defaults: unknown; createdAt: string; agentCount: number }

type Row = { id: string; name: string; defaults_json: string; created_at: string; agent_count: number }

const selectWithCount = `select r.id, r.name, r.defaults_json, r.created_at,
  (select count(*) from agents a where a.role_id = r.id) as agent_count from roles r`

/** Role rows (SPEC §6.1): defaults that agents inherit. Validation and ceilings belong to the services. */
export class RoleRepository {
  constructor(private readonly db: Database) {}

  /** One role with the number of agents that have it, or undefined. */
  get(id: string): RoleRecord | undefined {
    const row = this.db.prepare(`${selectWithCount} where r.id = ?`).get(id) as Row | undefined
    return row ? recordOf(row) : undefined
  }

  /** Every role, by id. */
  list(): RoleRecord[] {
    return (this.db.prepare(`${selectWithCount} order by r.id`).all() as Row[]).map(recordOf)
  }

  /** Inserts a role or replaces its name and defaults (keeping its creation time). */
  save(role: { id: string; name: string; defaults: unknown; at: string }): void {
    this.db
      .prepare(
        `insert into roles (id, name, defaults_json, created_at) values (?, ?, ?, ?)
         on conflict(id) do update set name = excluded.name, defaults_json = excluded.defaults_json`
      )
      .run(role.id, role.name, JSON.stringify(role.defaults), role.at)
  }

  /** Deletes a role; returns false when there was none. Agents keep nothing of it (role_id set null). */
  delete(id: string): boolean {
    return this.db.prepare('delete from roles where id = ?').run(id).changes === 1
  }
}

function recordOf(row: Row): RoleRecord {
  let defaults: unknown
  try {
    defaults = JSON.parse(row.defaults_json)
  } catch {
    defaults = undefined
  }
  return { id: row.id, name: row.name, defaults, createdAt: row.created_at, agentCount: row.agent_count }
}
