import { agentIdSchema, type AgentView } from '@shared/agents'

/** Agents as the table lists them: newest first, ties by id (stable across refreshes). */
export function sortedAgents(agents: readonly AgentView[]): AgentView[] {
  return [...agents].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id))
}

/** How many agents are enabled and disabled (the view's subtitle). */
export function agentCounts(agents: readonly AgentView[]): { total: number; enabled: number; disabled: number } {
  const enabled = agents.filter((agent) => agent.enabled).length
  return { total: agents.length, enabled, disabled: agents.length - enabled }
}

/**
 * Why an agent id typed in the create form cannot be used, or undefined when it can: the same
 * rules main checks (a slug, not reserved) and not an id already registered here.
 */
export function agentIdProblem(id: string, existing: readonly AgentView[]): string | undefined {
  if (id.length === 0) return 'Give the agent an id.'
  const parsed = agentIdSchema.safeParse(id)
  if (!parsed.success) return `The id ${parsed.error.issues[0]?.message ?? 'is not valid'}.`
  if (existing.some((agent) => agent.id === id)) return `An agent with the id ${id} already exists.`
  return undefined
}

/** A creation time as the table shows it: the local date and time to the minute. */
export function formatCreated(iso: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`
}
