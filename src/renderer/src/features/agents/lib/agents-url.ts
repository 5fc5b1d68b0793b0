/** The detail tabs of an agent, in order. */
export const agentTabs = ['overview', 'timeline', 'workspace', 'connect', 'profile'] as const

/** A detail tab. */
export type AgentTab = (typeof agentTabs)[number]

/** The Agents view's state kept in the URL: `#/agents?agent=<id>&tab=<tab>&file=<path>`. */
export type AgentsQuery = { agent?: string; tab: AgentTab; file?: string }

/** Reads the view's state from a location hash (unknown tabs fall back to the overview). */
export function readAgentsQuery(hash: string): AgentsQuery {
  const params = new URLSearchParams(hash.split('?')[1] ?? '')
  const tab = params.get('tab')
  return {
    agent: params.get('agent') || undefined,
    tab: agentTabs.includes(tab as AgentTab) ? (tab as AgentTab) : 'overview',
    file: params.get('file') || undefined
  }
}

/** The hash for a state of the view: defaults are left out so links stay short. */
export function agentsHash(query: AgentsQuery): string {
  const params = new URLSearchParams()
  if (query.agent) params.set('agent', query.agent)
  if (query.tab !== 'overview') params.set('tab', query.tab)
  if (query.file && query.tab === 'workspace') params.set('file', query.file)
  const search = params.toString()
  return `#/agents${search ? `?${search}` : ''}`
}

/** The History view filtered to one agent (and opened on one call when `callId` is given). */
export function historyLink(agentId: string, callId?: string): string {
  const params = new URLSearchParams({ agent: agentId })
  if (callId) params.set('id', callId)
  return `#/history?${params.toString()}`
}

/** The Approvals view (the queue across agents). */
export function approvalsLink(): string {
  return '#/approvals'
}
