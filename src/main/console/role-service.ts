import { describeIssues, roleDefaultsSchema, roleInputSchema, type RoleChange, type RoleView } from '@shared/agents'
import type { AgentRepository, RoleRecord, RoleRepository } from '../store'
import { AgentError } from './agent-errors'
import { redactProfile, restoreSecrets } from './agent-views'

/** What the role service is built from. */
export type RoleServiceOptions = {
  roles: RoleRepository
  agents: AgentRepository
  now?: () => Date
  /** Told after a role changed, with the agents whose effective profiles may have changed with it. */
  onChange?: (event: { roleId: string; change: RoleChange; agentIds: string[] }) => void
}

/**
 * Roles (SPEC §6.1): defaults that agents inherit and cannot exceed (see role-ceiling.ts). A role
 * tightened later clamps its agents' effective profiles; it never rewrites their stored profiles.
 * A role that agents still have cannot be removed: removing it would lift their ceiling silently.
 */
export class RoleService {
  private readonly now: () => Date

  constructor(private readonly options: RoleServiceOptions) {
    this.now = options.now ?? (() => new Date())
  }

  /** Every role, by id, with how many agents have it; MCP server secrets shown as `redactedSecret`. */
  list(): RoleView[] {
    return this.options.roles.list().map(roleViewOf)
  }

  /** One role; `role.not_found` when there is none. */
  get(roleId: string): RoleView {
    const record = this.options.roles.get(roleId)
    if (!record) throw new AgentError('role.not_found', `There is no role ${roleId}.`, { roleId })
    return roleViewOf(record)
  }

  /** Creates a role or replaces its name and defaults; input is untrusted JSON, validated with the path of each bad field. */
  save(input: unknown): RoleView {
    const parsed = roleInputSchema.safeParse(input)
    if (!parsed.success) throw new AgentError('role.invalid', describeIssues(parsed.error, 'role'))
    const { id, name } = parsed.data
    // A form shows the defaults redacted and saves them back: the markers stand for the stored secrets.
    const stored = roleDefaultsSchema.safeParse(this.options.roles.get(id)?.defaults)
    const restored = restoreSecrets(parsed.data.defaults, stored.success ? stored.data : undefined)
    if (restored.problems.length > 0) throw new AgentError('role.invalid', restored.problems.map((problem) => `defaults.${problem}`).join('; '))
    const defaults = restored.profile
    if (defaults.unsafeFallback && (defaults.isolation ?? 'required') === 'required') {
      // The agents would inherit isolation `required`, with which the fallback means nothing.
      throw new AgentError('role.invalid', 'defaults.unsafeFallback: only valid with isolation "preferred" or "none"')
    }
    const existed = this.options.roles.get(id) !== undefined
    this.options.roles.save({ id, name: name ?? id, defaults, at: this.now().toISOString() })
    this.options.onChange?.({ roleId: id, change: existed ? 'updated' : 'created', agentIds: this.agentsOf(id) })
    return this.get(id)
  }

  /** Removes a role no agent has; `role.in_use` names the agents that still have it. */
  remove(roleId: string): void {
    const agentIds = this.options.agents.transaction(() => {
      const users = this.agentsOf(roleId)
      if (users.length > 0)
        throw new AgentError('role.in_use', `Role ${roleId} is still the role of ${users.join(', ')}; change their role first.`, { roleId, agentIds: users })
      if (!this.options.roles.delete(roleId)) throw new AgentError('role.not_found', `There is no role ${roleId}.`, { roleId })
      return users
    })
    this.options.onChange?.({ roleId, change: 'removed', agentIds })
  }

  private agentsOf(roleId: string): string[] {
    return this.options.agents.listByRole(roleId).map((agent) => agent.id)
  }
}

function roleViewOf(record: RoleRecord): RoleView {
  const defaults = roleDefaultsSchema.safeParse(record.defaults)
  return {
    id: record.id,
    name: record.name,
    // Its MCP servers' `env` and `headers` values are secrets (as in an agent's profile).
    defaults: defaults.success ? redactProfile(defaults.data) : {},
    ...(defaults.success ? {} : { defaultsError: describeIssues(defaults.error, 'defaults') }),
    agentCount: record.agentCount,
    createdAt: record.createdAt
  }
}
