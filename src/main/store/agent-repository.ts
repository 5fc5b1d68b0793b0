import type { Database } from 'better-sqlite3'

/** An agent row as stored. `profile` is the parsed JSON, validated by the agent service. */
export type AgentRecord = {
  id: string
  name: string
  roleId: string | null
  tokenHash: string
  enabled: boolean
  profile: unknown
  createdAt: string
  updatedAt: string
}

/** The columns an update may change. */
export type AgentRecordChange = Partial<Pick<AgentRecord, 'name' | 'roleId' | 'tokenHash' | 'enabled' | 'profile'>> & { updatedAt: string }

const changeableColumns = { name: 'name', roleId: 'role_id', tokenHash: 'token_hash', enabled: 'enabled', profile: 'profile_json' } as const

type Row = {
  id: string
  name: string
  role_id: string | null
  token_hash: string
  enabled: number
  profile_json: string
  created_at: string
  updated_at: string
}

/** Agent rows (SPEC §6.1). Validation, tokens and workspaces belong to the agent service. */
export class AgentRepository {
  constructor(private readonly db: Database) {}

  /** Runs `work` in one immediate (write-locked) transaction: it commits when `work` returns, rolls back when it throws. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate()
  }

  /** Inserts a new agent; returns false (and changes nothing) when the id is taken. */
  insert(record: AgentRecord): boolean {
    const result = this.db
      .prepare(
        `insert into agents (id, name, role_id, token_hash, enabled, profile_json, created_at, updated_at)
         values (?, ?, ?, ?, ?, ?, ?, ?) on conflict(id) do nothing`
      )
      .run(record.id, record.name, record.roleId, record.tokenHash, record.enabled ? 1 : 0, JSON.stringify(record.profile), record.createdAt, record.updatedAt)
    return result.changes === 1
  }

  /** One agent, or undefined. */
  get(id: string): AgentRecord | undefined {
    const row = this.db.prepare('select * from agents where id = ?').get(id) as Row | undefined
    return row ? recordOf(row) : undefined
  }

  /** Every agent, by id. */
  list(): AgentRecord[] {
    return (this.db.prepare('select * from agents order by id').all() as Row[]).map(recordOf)
  }

  /** The agents that have a role, by id. */
  listByRole(roleId: string): AgentRecord[] {
    return (this.db.prepare('select * from agents where role_id = ? order by id').all(roleId) as Row[]).map(recordOf)
  }

  /** Every agent's id, token hash and state: what authentication compares against. */
  credentials(): { id: string; tokenHash: string; enabled: boolean }[] {
    const rows = this.db.prepare('select id, token_hash, enabled from agents').all() as Pick<Row, 'id' | 'token_hash' | 'enabled'>[]
    return rows.map((row) => ({ id: row.id, tokenHash: row.token_hash, enabled: row.enabled === 1 }))
  }

  /** Changes the given columns; returns false when there is no such agent. */
  update(id: string, change: AgentRecordChange): boolean {
    const sets: string[] = ['updated_at = @updatedAt']
    const values: Record<string, unknown> = { id, updatedAt: change.updatedAt }
    for (const [key, column] of Object.entries(changeableColumns) as [keyof typeof changeableColumns, string][]) {
      const value = change[key]
      if (value === undefined) continue
      sets.push(`${column} = @${key}`)
      values[key] = key === 'enabled' ? (value ? 1 : 0) : key === 'profile' ? JSON.stringify(value) : value
    }
    return this.db.prepare(`update agents set ${sets.join(', ')} where id = @id`).run(values).changes === 1
  }

  /** Deletes an agent (its sessions go with it); returns false when there was none. */
  delete(id: string): boolean {
    return this.db.prepare('delete from agents where id = ?').run(id).changes === 1
  }
}

function recordOf(row: Row): AgentRecord {
  return {
    id: row.id,
    name: row.name,
    roleId: row.role_id,
    tokenHash: row.token_hash,
    enabled: row.enabled === 1,
    profile: parseJson(row.profile_json),
    createdAt: row.created_at,
    updatedAt: row.updated_at
  }
}

/** A hand-broken JSON column reads as `undefined`, which the service reports as an invalid profile. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
