import { classificationRank, type AgentView, type Classification } from '@shared/agents'
import type { ApprovalView, SessionView } from '@shared/approvals'

/** Agents as the list shows them: newest first, ties by id (stable across refreshes). */
export function sortedAgents(agents: readonly AgentView[]): AgentView[] {
  return [...agents].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id))
}

/** How many agents are enabled and disabled (the list's count line). */
export function agentCounts(agents: readonly AgentView[]): { total: number; enabled: number; disabled: number } {
  const enabled = agents.filter((agent) => agent.enabled).length
  return { total: agents.length, enabled, disabled: agents.length - enabled }
}

/** The agents whose id, name or role contains every word of `query` (case-insensitive). */
export function filterAgents(agents: readonly AgentView[], query: string): AgentView[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return [...agents]
  return agents.filter((agent) => {
    const text = `${agent.id} ${agent.name} ${agent.role ?? ''}`.toLowerCase()
    return words.every((word) => text.includes(word))
  })
}

/** A time as lists show it: the local date and time to the minute (an unparsable one as it is). */
export function formatCreated(iso: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`
}

/** What the list says of an agent at a glance: its state, open sessions, taint, pending approvals and last activity. */
export type AgentActivity = {
  /** `connected`: enabled with an open session; `invalid`: its stored profile no longer validates. */
  state: 'connected' | 'idle' | 'disabled' | 'invalid'
  openSessions: number
  /** The highest taint of its open sessions; null without an open session. */
  taint: Classification | null
  /** Pending queue items of this agent. */
  pending: number
  /** The newest of its session activity and its last recorded call, or null when nothing happened yet. */
  lastActivity: string | null
}

/** The later of two ISO times (either may be missing). */
export function laterTime(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b ?? null
  if (!b) return a
  return Date.parse(b) > Date.parse(a) ? b : a
}

/** The highest taint among sessions, or null when there are none. */
export function highestTaint(sessions: readonly Pick<SessionView, 'taint'>[]): Classification | null {
  let highest: Classification | null = null
  for (const session of sessions) if (highest === null || classificationRank(session.taint) > classificationRank(highest)) highest = session.taint
  return highest
}

/**
 * One agent's activity from what the host answered: its sessions (open and recent), the pending
 * queue and the start of its newest recorded call.
 */
export function activityOf(
  agent: Pick<AgentView, 'id' | 'enabled' | 'profileError'>,
  sessions: readonly SessionView[],
  pending: readonly Pick<ApprovalView, 'agentId'>[],
  lastCallAt: string | null | undefined
): AgentActivity {
  const own = sessions.filter((session) => session.agentId === agent.id)
  const open = own.filter((session) => session.open)
  let lastActivity = lastCallAt ?? null
  for (const session of own) lastActivity = laterTime(lastActivity, laterTime(session.lastSeenAt ?? session.startedAt, session.endedAt))
  const state = agent.profileError ? 'invalid' : !agent.enabled ? 'disabled' : open.length > 0 ? 'connected' : 'idle'
  return { state, openSessions: open.length, taint: highestTaint(open), pending: pending.filter((item) => item.agentId === agent.id).length, lastActivity }
}

/** The badge tone of a classification level: higher levels stand out more. */
export function taintTone(level: Classification | null): 'neutral' | 'info' | 'warn' | 'bad' {
  if (level === null || level === 'PUBLIC') return 'neutral'
  if (level === 'INTERNAL') return 'info'
  return level === 'CONFIDENTIAL' ? 'warn' : 'bad'
}

/** The newest call start per agent from a page of history rows (newest first), merged over what was known. */
export function mergeLastCalls(
  known: Readonly<Record<string, string>>,
  rows: readonly { agentId: string | null; startedAt: string }[]
): Record<string, string> {
  const merged = { ...known }
  for (const row of rows) if (row.agentId) merged[row.agentId] = laterTime(merged[row.agentId], row.startedAt)!
  return merged
}
