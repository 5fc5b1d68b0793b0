import type { NetDecision, NetRule } from '@shared/network'
import { ipLiteral } from './address-ranges'

/** What the rules say about one connection: the decision, the rule that made it, and whether it names the host exactly. */
export type RuleVerdict = { decision: NetDecision; rule: NetRule; exact: boolean }

/** Who a connection is for: the agent and its role, if any. */
export type RuleSubject = { agentId: string; role?: string }

/**
 * The rules' verdict on `host:port` for an agent (SPEC §6.5): the agent's own rules, its role's and
 * the global ones, each matching when its host is the host (exact, IP literals compared as
 * addresses) or a strict `*.suffix` of it, and its port (if any) is the port. A deny wins over
 * everything (a global or role deny is the operator's safety net), then an allow, then an ask; of
 * one decision the agent's rule is reported first, then the role's, then a global one. No matching
 * rule: undefined (the agent's ask mode decides).
 */
export function ruleVerdict(rules: readonly NetRule[], subject: RuleSubject, host: string, port: number): RuleVerdict | undefined {
  const reach = (rule: NetRule) =>
    rule.agentId !== null ? (rule.agentId === subject.agentId ? 0 : -1) : rule.roleId !== undefined ? (rule.roleId === subject.role ? 1 : -1) : 2
  const matching = rules
    .filter((rule) => reach(rule) >= 0 && hostMatches(rule.host, host) && (rule.port === undefined || rule.port === port))
    .sort((a, b) => reach(a) - reach(b))
  for (const decision of ['deny', 'allow', 'ask'] as const) {
    const rule = matching.find((candidate) => candidate.decision === decision)
    if (rule) return { decision, rule, exact: !rule.host.startsWith('*.') }
  }
  return undefined
}

/** A rule's host against a connection's (both lower-case; the connection's IP literal already canonical). */
export function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1
  return (ipLiteral(pattern) ?? pattern) === host
}

/** One line naming a rule, for refusals and history. */
export function describeRule(rule: NetRule): string {
  return `${rule.decision} ${rule.host}${rule.port ? `:${rule.port}` : ''} (${ruleScope(rule)}, rule ${rule.id})`
}

/** Whom a rule is for, in words: `agent coder`, `role builders`, `global`. */
export function ruleScope(rule: Pick<NetRule, 'agentId' | 'roleId'>): string {
  return rule.agentId ? `agent ${rule.agentId}` : rule.roleId ? `role ${rule.roleId}` : 'global'
}
