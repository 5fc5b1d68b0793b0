import { ruleMatcherSchema, type RuleMatcher, type RuleView } from '@shared/approvals'

/** Time-to-live choices for a rule, shortest first; `null` is no expiry. */
export const ttlChoices: { label: string; seconds: number | null }[] = [
  { label: '1 hour', seconds: 3600 },
  { label: '8 hours', seconds: 8 * 3600 },
  { label: '24 hours', seconds: 24 * 3600 },
  { label: '7 days', seconds: 7 * 24 * 3600 },
  { label: '30 days', seconds: 30 * 24 * 3600 },
  { label: 'No expiry', seconds: null }
]

/** The TTL a new rule gets unless the operator picks another: a day, so a forgotten rule ends by itself. */
export const defaultTtlSeconds = 24 * 3600

/** One fact of what a matcher covers, for the rule preview: a label, and words or tokens. */
export type MatcherFact = { label: string; tokens?: string[]; text?: string; glob?: string }

/**
 * What a matcher covers, fact by fact (SPEC §7): each command of a line in order with its exact
 * prefix and what may follow, a file subtree, a host and port, a tool with its exact input.
 */
export function matcherFacts(matcher: RuleMatcher): MatcherFact[] {
  switch (matcher.kind) {
    case 'command':
      return matcher.commands.map((entry, index) => ({
        label: matcher.commands.length > 1 ? `Command ${index + 1}` : 'Command',
        tokens: entry.prefix,
        ...(entry.args ? { glob: entry.args } : { text: 'nothing more may follow' })
      }))
    case 'path':
      return [
        { label: 'Tools', tokens: matcher.tools },
        { label: 'Writes inside', text: matcher.subtree === '.' ? 'anywhere in the workspace' : `${matcher.subtree} (workspace-relative)` }
      ]
    case 'domain':
      return [
        { label: 'Host', text: matcher.host.startsWith('*.') ? `${matcher.host} (any sub-domain)` : matcher.host },
        { label: 'Port', text: matcher.port === undefined ? 'any port' : String(matcher.port) }
      ]
    case 'tool':
      return [
        { label: 'Tool', tokens: [matcher.tool] },
        {
          label: 'Input',
          text:
            matcher.args === undefined
              ? 'any input'
              : Object.keys(matcher.args).length === 0
                ? 'no input fields'
                : `exactly ${Object.entries(matcher.args)
                    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
                    .join(', ')}`
        }
      ]
  }
}

/** What kind of thing a matcher matches, in a word. */
export function matcherKindLabel(matcher: RuleMatcher): string {
  return { command: 'command', path: 'file writes', domain: 'network', tool: 'tool' }[matcher.kind]
}

/** Parses a matcher the operator edited as JSON with the shared schema: the matcher, or the first problem in words. */
export function parseMatcherJson(text: string): { ok: true; matcher: RuleMatcher } | { ok: false; error: string } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { ok: false, error: `Not JSON: ${(error as Error).message}` }
  }
  const parsed = ruleMatcherSchema.safeParse(value)
  if (parsed.success) return { ok: true, matcher: parsed.data }
  const issue = parsed.error.issues[0]!
  return { ok: false, error: `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}` }
}

/** A rule's state now: active, expired (its TTL passed, or its session ended) or revoked. */
export function ruleState(rule: Pick<RuleView, 'revokedAt' | 'expiresAt'>, now: number): 'active' | 'expired' | 'revoked' {
  if (rule.revokedAt !== null) return 'revoked'
  if (rule.expiresAt !== null && Date.parse(rule.expiresAt) <= now) return 'expired'
  return 'active'
}

/** Who a rule applies to, in words: `coder`, `every agent`, `coder · session 1a2b3c4d`. */
export function ruleScopeLabel(rule: Pick<RuleView, 'scope' | 'agentId' | 'sessionId'>): string {
  if (rule.scope === 'global') return 'every agent'
  if (rule.scope === 'session') return `${rule.agentId ?? '?'} · session ${shortId(rule.sessionId ?? '')}`
  return rule.agentId ?? '?'
}

/** The first 8 characters of an id, for places where the whole one is on hover. */
export function shortId(id: string): string {
  return id.slice(0, 8)
}

/** Active rules first (newest first), then the ended ones. */
export function rulesInOrder(rules: readonly RuleView[], now: number): RuleView[] {
  return [...rules].sort(
    (a, b) => Number(ruleState(a, now) !== 'active') - Number(ruleState(b, now) !== 'active') || Date.parse(b.createdAt) - Date.parse(a.createdAt)
  )
}
