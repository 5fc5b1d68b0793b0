import { randomUUID } from 'node:crypto'
import { ruleMatcherSchema, type RuleChangedEvent, type RuleMatcher, type RuleScope, type RuleView } from '@shared/approvals'
import type { CommandAnalyzer } from '../../core'
import type { Store } from '../../store'
import { ApprovalError } from './approval-errors'
import { describeMatcher, matcherCovers, notRememberable, type RequestFacts } from './rule-matchers'

/** What the rule service is built from. */
export type RuleServiceOptions = {
  store: Pick<Store, 'rules' | 'events'>
  /** The command analyzer (command rules match on its parse); when it cannot load, no command rule matches. */
  analyzer: () => Promise<CommandAnalyzer>
  onChange?: (event: RuleChangedEvent) => void
}

/** A rule to make from an operator's decision. */
export type RuleDraft = {
  scope: RuleScope
  agentId: string | null
  sessionId: string | null
  matcher: RuleMatcher
  riskFlags: readonly string[]
  ttlSeconds?: number
  approvalId: string | null
}

/**
 * Remembered grants (SPEC §7): the operator lists, edits and revokes them; the console's approval
 * handler asks `findMatch` before it queues a request. A rule answers a request only when all hold:
 * it applies (its session while open, its agent, or global), it is neither revoked nor expired,
 * the request may be remembered at all (see `notRememberable`), every risk flag of the request is
 * one the rule was made for, and its matcher covers the request's parsed facts. Rules only allow:
 * the dispatcher never asks about what the denylist or a boundary refuses, so no rule can reach it.
 */
export class RuleService {
  private analyzer?: Promise<CommandAnalyzer | undefined>

  constructor(private readonly options: RuleServiceOptions) {}

  /** Active rules, or every rule with `all`. */
  list(options: { all?: boolean } = {}): RuleView[] {
    return this.options.store.rules.list(options)
  }

  /** One rule, or a `rule.not_found` error. */
  get(id: string): RuleView {
    const rule = this.options.store.rules.get(id)
    if (!rule) throw new ApprovalError('rule.not_found', `There is no rule ${JSON.stringify(id)}.`, { id })
    return rule
  }

  /** Makes a rule (from an approval); the caller runs this inside its decision's transaction. */
  create(draft: RuleDraft): RuleView {
    const matcher = ruleMatcherSchema.parse(draft.matcher)
    const rule = this.options.store.rules.insert({
      id: randomUUID(),
      scope: draft.scope,
      agentId: draft.scope === 'global' ? null : draft.agentId,
      sessionId: draft.scope === 'session' ? draft.sessionId : null,
      matcher,
      riskFlags: [...draft.riskFlags],
      description: describeMatcher(matcher),
      expiresAt: draft.ttlSeconds === undefined ? null : new Date(Date.now() + draft.ttlSeconds * 1000).toISOString(),
      approvalId: draft.approvalId
    })
    this.options.store.events.append('rule.created', {
      ruleId: rule.id,
      scope: rule.scope,
      agentId: rule.agentId,
      sessionId: rule.sessionId,
      description: rule.description,
      approvalId: rule.approvalId
    })
    return rule
  }

  /** Edits a rule that is not revoked: its matcher (validated) and/or its time to live (null: no expiry, counted from now). */
  update(input: { id: string; matcher?: RuleMatcher; ttlSeconds?: number | null }): RuleView {
    const current = this.get(input.id)
    if (current.revokedAt !== null) throw new ApprovalError('rule.revoked', `Rule ${input.id} was revoked; a revoked rule does not change.`, { id: input.id })
    const matcher = input.matcher === undefined ? undefined : ruleMatcherSchema.parse(input.matcher)
    const expiresAt =
      input.ttlSeconds === undefined ? undefined : input.ttlSeconds === null ? null : new Date(Date.now() + input.ttlSeconds * 1000).toISOString()
    if (!this.options.store.rules.update(input.id, { matcher, description: matcher ? describeMatcher(matcher) : undefined, expiresAt })) {
      throw new ApprovalError('rule.revoked', `Rule ${input.id} was revoked; a revoked rule does not change.`, { id: input.id })
    }
    const rule = this.get(input.id)
    this.options.store.events.append('rule.updated', { ruleId: rule.id, description: rule.description, expiresAt: rule.expiresAt })
    this.options.onChange?.({ ruleId: rule.id, change: 'updated' })
    return rule
  }

  /** Revokes a rule: it never matches again. Revoking twice is a `rule.revoked` error. */
  revoke(id: string): RuleView {
    this.get(id)
    if (!this.options.store.rules.revoke(id)) throw new ApprovalError('rule.revoked', `Rule ${id} was already revoked.`, { id })
    this.options.store.events.append('rule.revoked', { ruleId: id })
    this.options.onChange?.({ ruleId: id, change: 'revoked' })
    return this.get(id)
  }

  /**
   * The active rule that answers a request, if any; its match is counted. Undefined for every
   * request a rule may not answer (write-downs, unanalysed lines, resources...).
   */
  async findMatch(facts: RequestFacts, sessionId: string | null): Promise<RuleView | undefined> {
    if (notRememberable(facts) !== undefined || facts.agentId === null) return undefined
    const candidates = this.options.store.rules.applicable(facts.agentId, sessionId)
    if (candidates.length === 0) return undefined
    const analyzer = await this.loadAnalyzer()
    for (const rule of candidates) {
      if (!facts.riskFlags.every((flag) => rule.riskFlags.includes(flag))) continue
      if (!matcherCovers(rule.matcher, facts, analyzer)) continue
      // Counted only if still active now (revoked or expired meanwhile: look further).
      if (!this.options.store.rules.recordMatch(rule.id)) continue
      this.options.store.events.append('rule.matched', { ruleId: rule.id, agentId: facts.agentId, sessionId, tool: facts.tool })
      this.options.onChange?.({ ruleId: rule.id, change: 'matched' })
      return rule
    }
    return undefined
  }

  /** Ends the rules of a session that ended. */
  expireSession(sessionId: string): void {
    if (this.options.store.rules.expireSession(sessionId) > 0) this.options.onChange?.({ change: 'updated' })
  }

  /** The analyzer, loaded once; undefined when it cannot load (no command rule matches then: fail closed). */
  loadAnalyzer(): Promise<CommandAnalyzer | undefined> {
    this.analyzer ??= this.options.analyzer().catch(() => undefined)
    return this.analyzer
  }
}
