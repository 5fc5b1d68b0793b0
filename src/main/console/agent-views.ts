import { agentProfileSchema, describeIssues, redactedSecret, type AgentProfile, type AgentView, type McpServerConfig } from '@shared/agents'
import { fail, ok, type Result } from '@shared/result'
import type { AgentRecord } from '../store'

/** Re-validates a stored profile: valid, or `agent.profile_corrupt` saying why (a hand-edited database); such a profile is never used. */
export function readStoredProfile(stored: unknown): Result<AgentProfile> {
  const parsed = agentProfileSchema.safeParse(stored)
  return parsed.success ? ok(parsed.data) : fail('agent.profile_corrupt', describeIssues(parsed.error, 'profile'))
}

/** An agent as shown: no token hash, secrets of MCP servers replaced by `redactedSecret`. */
export function agentViewOf(record: AgentRecord): AgentView {
  const stored = readStoredProfile(record.profile)
  return {
    id: record.id,
    name: record.name,
    role: record.roleId,
    enabled: record.enabled,
    profile: stored.ok ? redactProfile(stored.value) : {},
    ...(stored.ok ? {} : { profileError: stored.error.message }),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt
  }
}

/** The profile (or a role's defaults) with every MCP `env` and `headers` value redacted. */
export function redactProfile<P extends Pick<AgentProfile, 'mcpServers'>>(profile: P): P {
  if (!profile.mcpServers) return profile
  return { ...profile, mcpServers: profile.mcpServers.map((server) => ({ ...server, ...redactValues(server) })) }
}

/**
 * Puts stored secrets back where an edited profile (or role defaults) sent `redactedSecret` for the
 * same server and key (a form that showed the redacted view and saved it). A marker with nothing
 * behind it is refused.
 */
export function restoreSecrets<P extends Pick<AgentProfile, 'mcpServers'>>(
  profile: P,
  stored: Pick<AgentProfile, 'mcpServers'> | undefined
): { profile: P; problems: string[] } {
  if (!profile.mcpServers) return { profile, problems: [] }
  const problems: string[] = []
  const mcpServers = profile.mcpServers.map((server, index) => {
    const before = stored?.mcpServers?.find((s) => s.name === server.name)
    const restore = (field: 'env' | 'headers') => {
      const values = server[field]
      if (!values) return undefined
      return Object.fromEntries(
        Object.entries(values).map(([key, value]) => {
          if (value !== redactedSecret) return [key, value]
          const kept = before?.[field]?.[key]
          if (kept === undefined) problems.push(`mcpServers.${index}.${field}.${key}: ${redactedSecret} stands for a stored value, and there is none`)
          return [key, kept ?? value]
        })
      )
    }
    const env = restore('env')
    const headers = restore('headers')
    return { ...server, ...(env ? { env } : {}), ...(headers ? { headers } : {}) }
  })
  return { profile: { ...profile, mcpServers }, problems }
}

function redactValues(server: McpServerConfig): Partial<McpServerConfig> {
  const hide = (values?: Record<string, string>) => (values ? Object.fromEntries(Object.keys(values).map((key) => [key, redactedSecret])) : undefined)
  const env = hide(server.env)
  const headers = hide(server.headers)
  return { ...(env ? { env } : {}), ...(headers ? { headers } : {}) }
}
