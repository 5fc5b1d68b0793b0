import { randomUUID } from 'node:crypto'
import type { Database } from 'better-sqlite3'
import { netHostInputSchema, netRuleInputSchema, netRuleSchema, type NetHost, type NetRule, type NetRuleInput } from '@shared/network'

type RuleRow = { id: string; agent_id: string | null; role_id: string | null; decision: string; host: string; port: number | null; created_at: string }

/**
 * The egress proxy's domain rules and pinned names (SPEC §6.5), in SQLite so a CLI process and a
 * running console see the same ones (the proxy reads them on every connection).
 */
export class NetworkRepository {
  constructor(private readonly db: Database) {}

  /** Every rule, oldest first. */
  rules(): NetRule[] {
    const rows = this.db.prepare('select * from network_rules order by created_at, id').all() as RuleRow[]
    return rows.flatMap((row) => {
      const parsed = netRuleSchema.safeParse({
        id: row.id,
        agentId: row.agent_id,
        ...(row.role_id === null ? {} : { roleId: row.role_id }),
        decision: row.decision,
        host: row.host,
        ...(row.port === null ? {} : { port: row.port }),
        createdAt: row.created_at
      })
      return parsed.success ? [parsed.data] : []
    })
  }

  /** Adds a rule (validated here too: the store is a boundary). */
  addRule(input: NetRuleInput): NetRule {
    const rule = netRuleInputSchema.parse(input)
    const stored: NetRule = { ...rule, id: `net-${randomUUID().slice(0, 8)}`, createdAt: new Date().toISOString() }
    this.db
      .prepare('insert into network_rules (id, agent_id, role_id, decision, host, port, created_at) values (?, ?, ?, ?, ?, ?, ?)')
      .run(stored.id, stored.agentId, stored.roleId ?? null, stored.decision, stored.host, stored.port ?? null, stored.createdAt)
    return stored
  }

  /** Removes a rule; false when there was none with that id. */
  removeRule(id: string): boolean {
    return this.db.prepare('delete from network_rules where id = ?').run(id).changes > 0
  }

  /** Every pinned name. */
  hosts(): NetHost[] {
    return this.db.prepare('select name, address from network_hosts order by name').all() as NetHost[]
  }

  /** The pinned address of a name, if the operator pinned it. */
  pinned(name: string): string | undefined {
    return (this.db.prepare('select address from network_hosts where name = ?').get(name) as { address: string } | undefined)?.address
  }

  /** Pins a name to an address (replacing an earlier pin). */
  addHost(input: NetHost): NetHost {
    const host = netHostInputSchema.parse(input)
    this.db
      .prepare('insert into network_hosts (name, address) values (?, ?) on conflict(name) do update set address = excluded.address')
      .run(host.name, host.address)
    return host
  }

  /** Unpins a name; false when it was not pinned. */
  removeHost(name: string): boolean {
    return this.db.prepare('delete from network_hosts where name = ?').run(name).changes > 0
  }
}
