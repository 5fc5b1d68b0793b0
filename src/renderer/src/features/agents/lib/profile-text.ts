import type { AgentView, RoleView } from '@shared/agents'
import type { LimitKey } from './profile-form'

/** What each `ask` mode means for the agent's calls (SPEC §6.1), in one line. */
export const askMeaning: Record<string, string> = {
  always: 'Every call that executes or writes waits for the operator.',
  on_risk: 'Risky calls wait (network, package installs, deletions outside scratch/, VCS or config writes, isolation fallback); denylisted ones are blocked.',
  never: 'Nothing waits; the denylist, hard boundaries and isolation still apply.'
}

/** What each isolation policy means, in one line. */
export const isolationMeaning: Record<string, string> = {
  required: 'Code runs only in an isolating provider; without one the call fails.',
  preferred: 'Isolation when a provider offers it; falls back to the host only with unsafe fallback and allow unsafe local both on.',
  none: 'No isolation is asked for.'
}

/** What each network mode lets code reach. */
export const networkMeaning: Record<string, string> = {
  none: 'No network.',
  proxy: 'Through Airlock’s egress proxy (domains are checked and recorded).',
  full: 'Unrestricted network.'
}

/** A limit's label and unit, in the form and the profile summary. */
export const limitText: Record<LimitKey, { label: string; unit: string }> = {
  timeoutSeconds: { label: 'Wall time', unit: 's' },
  cpuSeconds: { label: 'CPU time', unit: 'CPU-s' },
  memoryMb: { label: 'Memory', unit: 'MB' },
  pids: { label: 'Processes', unit: 'pids' },
  diskMb: { label: 'Disk quota', unit: 'MB' },
  outputBytes: { label: 'Output', unit: 'bytes' }
}

/** Where an effective value comes from: the agent's own profile, its role's defaults, or Airlock's defaults. */
export type ValueSource = 'agent' | 'role' | 'default'

/** The source of a profile key (`limits.pids` for a limit) for an agent and its role. */
export function sourceOf(key: string, agent: Pick<AgentView, 'profile'>, role: Pick<RoleView, 'defaults'> | undefined): ValueSource {
  const [head, sub] = key.split('.') as [string, string | undefined]
  const has = (profile: Record<string, unknown> | undefined) => {
    const value = profile?.[head]
    if (value === undefined) return false
    return sub === undefined ? true : (value as Record<string, unknown>)[sub] !== undefined
  }
  if (has(agent.profile as Record<string, unknown>)) return 'agent'
  if (has(role?.defaults as Record<string, unknown> | undefined)) return 'role'
  return 'default'
}
