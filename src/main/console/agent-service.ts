import { z } from 'zod'
import {
  agentIdSchema,
  agentProfileSchema,
  describeIssues,
  operatorDefaults,
  roleDefaultsSchema,
  type AgentChange,
  type AgentProfile,
  type AgentView,
  type CeilingClamp,
  type EffectiveAgentProfile,
  type RoleDefaults
} from '@shared/agents'
import type { AgentDetail } from '@shared/ipc/agents'
import type { AgentRecord, AgentRepository, RoleRepository } from '../store'
import { AgentError } from './agent-errors'
import { newAgentToken, presentedDigest, tokenDigest, tokenMatches } from './agent-tokens'
import { agentViewOf, readStoredProfile, redactProfile, restoreSecrets } from './agent-views'
import type { AgentWorkspaces } from './agent-workspaces'
import { resolveProfile } from './role-ceiling'
import type { SettingsService } from './settings-service'

/** What the agent service is built from (the host passes the store's repositories and the home's workspaces folder). */
export type AgentServiceOptions = {
  agents: AgentRepository
  roles: RoleRepository
  workspaces: AgentWorkspaces
  now?: () => Date
  /**
   * What an agent that sets nothing gets (`operatorDefaults` of the `code_execution.providers`
   * setting), read at every resolution so the operator's order applies live. Default: the product's.
   */
  defaults?: () => EffectiveAgentProfile
  /** Told after every change is committed; the host cancels an agent's calls in flight on `disabled` and `removed`. */
  onChange?: (event: { agentId: string; change: AgentChange }) => void
}

/** The `defaults` of an agent service on these settings: the operator's provider order, read at each call. */
export function defaultsFromSettings(settings: Pick<SettingsService, 'get'>): () => EffectiveAgentProfile {
  return () => operatorDefaults(settings.get('code_execution.providers'))
}

/** What a new agent may be given besides its id; `profile` is untrusted JSON, validated here. */
export type AgentCreateInput = { name?: string; role?: string; profile?: unknown }

/** A change to an agent: `profile` replaces the stored one, `patch` is laid over it (limits key by key). The role changes only when `role` (or the profile's `role`) names one; `role: null` clears it. */
export type AgentUpdateInput = { name?: string; role?: string | null; profile?: unknown; patch?: unknown }

/** What `create` returns: the token appears here once and is never stored or shown again. */
export type CreatedAgent = { agent: AgentView; token: string; workspace: string; movedAside?: string }

const agentNameSchema = z.string().trim().min(1, 'must not be empty').max(200)

/**
 * Agents (SPEC §6.1): their records, tokens, roles' ceilings and workspaces. Profiles are validated
 * with `agentProfileSchema`; an agent never gets more than its role allows (see role-ceiling.ts).
 * Tokens are 256-bit random, shown once, stored as SHA-256 and compared in constant time.
 */
export class AgentService {
  private readonly now: () => Date

  constructor(private readonly options: AgentServiceOptions) {
    this.now = options.now ?? (() => new Date())
  }

  /** Registers an agent with a fresh workspace and returns it with its token (shown once). */
  create(id: unknown, input: AgentCreateInput = {}): CreatedAgent {
    const agentId = parseOrRefuse(agentIdSchema, id, 'agent.invalid_id', 'id')
    const name = parseOrRefuse(agentNameSchema, input.name ?? agentId, 'agent.invalid_name', 'name')
    const { role: profileRole, ...profile } = parseOrRefuse(agentProfileSchema, input.profile ?? {}, 'agent.invalid_profile', 'profile')
    if (input.role !== undefined && profileRole !== undefined && input.role !== profileRole) {
      throw new AgentError('agent.invalid_profile', `role: the profile names role ${profileRole}, but role ${input.role} was given`)
    }
    const roleId = input.role ?? profileRole ?? null
    this.checkWithinRole(roleId, profile)
    const token = newAgentToken()
    const at = this.now().toISOString()
    const record: AgentRecord = { id: agentId, name, roleId, tokenHash: tokenDigest(token), enabled: true, profile, createdAt: at, updatedAt: at }
    const workspace = this.options.agents.transaction(() => {
      if (!this.options.agents.insert(record)) throw new AgentError('agent.exists', `An agent ${agentId} already exists.`, { agentId })
      return this.options.workspaces.create(agentId)
    })
    this.changed(agentId, 'created')
    return { agent: agentViewOf(record), token, workspace: workspace.path, ...(workspace.movedAside ? { movedAside: workspace.movedAside } : {}) }
  }

  /** Every agent, by id. */
  list(): AgentView[] {
    return this.options.agents.list().map(agentViewOf)
  }

  /** One agent; `agent.not_found` when there is none. */
  get(agentId: string): AgentView {
    return agentViewOf(this.record(agentId))
  }

  /** Changes an agent's name, role or profile; the result is validated and checked against the role as a whole. */
  update(agentId: string, change: AgentUpdateInput): AgentView {
    const record = this.record(agentId)
    if (change.profile !== undefined && change.patch !== undefined)
      throw new AgentError('agent.invalid_profile', 'profile: give a whole profile or a patch, not both')
    const name = change.name === undefined ? undefined : parseOrRefuse(agentNameSchema, change.name, 'agent.invalid_name', 'name')
    const stored = readStoredProfile(record.profile)
    let next: AgentProfile | undefined
    if (change.profile !== undefined) next = parseOrRefuse(agentProfileSchema, change.profile, 'agent.invalid_profile', 'profile')
    if (change.patch !== undefined) {
      const patch = parseOrRefuse(agentProfileSchema, change.patch, 'agent.invalid_profile', 'patch')
      if (!stored.ok)
        throw new AgentError('agent.profile_corrupt', `The stored profile of ${agentId} is invalid (${stored.error.message}); replace it with a whole profile.`)
      const merged = { ...stored.value, ...patch, ...(patch.limits ? { limits: { ...stored.value.limits, ...patch.limits } } : {}) }
      next = parseOrRefuse(agentProfileSchema, merged, 'agent.invalid_profile', 'profile')
    }
    const { role: profileRole, ...profile } = next ?? (stored.ok ? stored.value : {})
    if (change.role !== undefined && profileRole !== undefined && change.role !== profileRole) {
      throw new AgentError('agent.invalid_profile', `role: the profile names role ${profileRole}, but role ${change.role} was given`)
    }
    const roleId = change.role !== undefined ? change.role : (profileRole ?? record.roleId)
    const restored = restoreSecrets(profile, stored.ok ? stored.value : undefined)
    if (restored.problems.length > 0) throw new AgentError('agent.invalid_profile', restored.problems.join('; '))
    this.checkWithinRole(roleId, restored.profile)
    const updatedAt = this.now().toISOString()
    this.options.agents.update(agentId, { ...(name === undefined ? {} : { name }), roleId, ...(next ? { profile: restored.profile } : {}), updatedAt })
    this.changed(agentId, 'updated')
    return this.get(agentId)
  }

  /** Enables or disables an agent; a disabled agent never authenticates and cannot start sessions. */
  setEnabled(agentId: string, enabled: boolean): AgentView {
    const record = this.record(agentId)
    if (record.enabled !== enabled) {
      this.options.agents.update(agentId, { enabled, updatedAt: this.now().toISOString() })
      this.changed(agentId, enabled ? 'enabled' : 'disabled')
    }
    return this.get(agentId)
  }

  /** Disables an agent (see `setEnabled`). */
  disable(agentId: string): AgentView {
    return this.setEnabled(agentId, false)
  }

  /** Enables an agent again (see `setEnabled`). */
  enable(agentId: string): AgentView {
    return this.setEnabled(agentId, true)
  }

  /** Removes an agent and its sessions; its workspace moves to `.removed/` (nothing is deleted) and is returned. */
  remove(agentId: string): { workspaceMovedTo?: string } {
    const movedTo = this.options.agents.transaction(() => {
      if (!this.options.agents.delete(agentId)) throw notFound(agentId)
      return this.options.workspaces.moveAside(agentId)
    })
    this.changed(agentId, 'removed')
    return movedTo ? { workspaceMovedTo: movedTo } : {}
  }

  /** Replaces an agent's token (the old one stops working at once) and returns the new one, shown once. */
  rotateToken(agentId: string): string {
    this.record(agentId)
    const token = newAgentToken()
    this.options.agents.update(agentId, { tokenHash: tokenDigest(token), updatedAt: this.now().toISOString() })
    this.changed(agentId, 'updated')
    return token
  }

  /** The profile an agent's calls run under: its values over its role's over the defaults, capped by the role. */
  effectiveProfile(agentId: string): EffectiveAgentProfile {
    return this.resolvedProfile(agentId).profile
  }

  /** The effective profile and what the role's ceiling changed in it (a role tightened after the agent was saved). */
  resolvedProfile(agentId: string): { profile: EffectiveAgentProfile; clamped: CeilingClamp[] } {
    const record = this.record(agentId)
    const stored = readStoredProfile(record.profile)
    // Fail closed: an agent whose stored profile no longer validates runs nothing.
    if (!stored.ok)
      throw new AgentError('agent.profile_corrupt', `The stored profile of ${agentId} is invalid (${stored.error.message}); save it again.`, { agentId })
    return resolveProfile(stored.value, record.roleId ? this.role(record.roleId) : undefined, this.options.defaults?.())
  }

  /** An agent with its effective profile (secrets redacted), what its role clamped, and its workspace: the Agents view's detail. */
  detail(agentId: string): AgentDetail {
    const agent = this.get(agentId)
    const workspace = this.options.workspaces.pathOf(agentId)
    try {
      const { profile, clamped } = this.resolvedProfile(agentId)
      return { agent, effectiveProfile: { ...profile, mcpServers: redactProfile({ mcpServers: profile.mcpServers }).mcpServers ?? [] }, clamped, workspace }
    } catch (error) {
      if (!(error instanceof AgentError)) throw error
      return { agent, clamped: [], problem: error.message, workspace }
    }
  }

  /** The enabled agent a token belongs to, or undefined. Every stored digest is compared, in constant time each. */
  authenticate(token: unknown): AgentView | undefined {
    const digest = presentedDigest(token)
    if (!digest) return undefined
    let match: string | undefined
    for (const credential of this.options.agents.credentials()) {
      if (tokenMatches(digest, credential.tokenHash) && credential.enabled && match === undefined) match = credential.id
    }
    const record = match === undefined ? undefined : this.options.agents.get(match)
    return record?.enabled ? agentViewOf(record) : undefined
  }

  /** Whether an agent can work now: `removed` also for an id that never existed. */
  state(agentId: string): 'enabled' | 'disabled' | 'removed' {
    const record = this.options.agents.get(agentId)
    return !record ? 'removed' : record.enabled ? 'enabled' : 'disabled'
  }

  /** The real path of an agent's workspace, made again if it was deleted by hand. */
  workspaceOf(agentId: string): string {
    this.record(agentId)
    return this.options.workspaces.ensure(agentId)
  }

  private record(agentId: string): AgentRecord {
    const record = this.options.agents.get(agentId)
    if (!record) throw notFound(agentId)
    return record
  }

  private role(roleId: string): { id: string; defaults: RoleDefaults } {
    const record = this.options.roles.get(roleId)
    if (!record) throw new AgentError('role.not_found', `There is no role ${roleId}.`, { roleId })
    const defaults = roleDefaultsSchema.safeParse(record.defaults)
    if (!defaults.success)
      throw new AgentError('role.invalid', `The stored defaults of role ${roleId} are invalid: ${describeIssues(defaults.error, 'defaults')}`, { roleId })
    return { id: roleId, defaults: defaults.data }
  }

  private checkWithinRole(roleId: string | null, profile: AgentProfile): void {
    if (roleId === null) return
    const { clamped } = resolveProfile(profile, this.role(roleId), this.options.defaults?.())
    if (clamped.length === 0) return
    throw new AgentError('agent.exceeds_role', `The profile exceeds its role: ${clamped.map((c) => `${c.path}: ${c.message}`).join('; ')}`, { roleId, clamped })
  }

  private changed(agentId: string, change: AgentChange): void {
    this.options.onChange?.({ agentId, change })
  }
}

function notFound(agentId: string): AgentError {
  return new AgentError('agent.not_found', `There is no agent ${agentId}.`, { agentId })
}

/** Parses untrusted input or throws an `AgentError` naming the path of each bad field under `root`. */
function parseOrRefuse<T>(schema: z.ZodType<T>, value: unknown, code: 'agent.invalid_id' | 'agent.invalid_name' | 'agent.invalid_profile', root: string): T {
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  // An id or a name is one field: say which value was refused; a profile names the path of each bad field.
  const message =
    root === 'id' || root === 'name'
      ? `${root} ${JSON.stringify(value)}: ${parsed.error.issues.map((i) => i.message).join('; ')}`
      : describeIssues(parsed.error, root)
  throw new AgentError(code, message)
}
