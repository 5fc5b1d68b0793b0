import {
  approvalDecisionInputSchema,
  type ApprovalDecisionInput,
  type ApprovalDecisionView,
  type ApprovalStatus,
  type ApprovalView,
  type RuleView
} from '@shared/approvals'
import type { Store } from '../../store'
import { ApprovalError } from './approval-errors'
import { commandsWereCut } from './approval-requests'
import type { RuleService } from './rule-service'

/** Who decided: the console (IPC), the CLI, the item's timeout, or a restart. */
export type DecidedBy = 'console' | 'cli' | 'timeout' | 'restart' | 'cancelled'

/** The outcome of a decision: the item after it, and the rule it made. */
export type Decided = { item: ApprovalView; rule?: RuleView }

/**
 * The operator's decisions on queue items (SPEC §7), the same in every process (the console's
 * queue, the CLI): approve once, for this session (a `session` rule with the item's proposed
 * matcher, ending with the session), as a rule (scope, TTL, optionally an edited matcher), or deny
 * with a reason. An item is decided once: the status change is conditional on `pending`, in the
 * same transaction as the rule it makes, so a second decision is `approval.already_decided` and
 * leaves no rule behind. An item nobody waits for any more (after a restart, or its calls went
 * away) is recorded with the operator's decision but marked `expired` (`delivered: 0`); a rule
 * decision still makes the rule. A decision that arrives at or after the item's `expiresAt` does
 * not land, even when the expiry timer has not run yet (a busy process): inside the same
 * transaction the item is expired instead (`decision.decision: 'expire'`, by the decider, the
 * reason saying the decision came too late), no rule is made, and its calls are denied.
 */
export class ApprovalDecisions {
  constructor(private readonly options: { store: Pick<Store, 'db' | 'approvals' | 'events'>; rules: RuleService }) {}

  /** Decides an item. `waitingHere`: calls of this process waiting on it (the CLI has none). */
  decide(input: ApprovalDecisionInput, by: DecidedBy, waitingHere: (id: string) => number): Decided {
    const parsed = approvalDecisionInputSchema.safeParse(input)
    if (!parsed.success)
      throw new ApprovalError(
        'approval.invalid_decision',
        `Invalid decision: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; ')}.`
      )
    const decision = parsed.data
    const { approvals } = this.options.store
    return this.options.store.db
      .transaction((): Decided => {
        const item = approvals.get(decision.id)
        if (!item) throw new ApprovalError('approval.not_found', `There is no approval ${JSON.stringify(decision.id)}.`, { id: decision.id })
        if (item.status !== 'pending') throw alreadyDecided(item)
        // Too late: the call was (or is about to be) denied at the deadline, whoever is slower.
        if (Date.now() >= Date.parse(item.expiresAt)) return { item: this.expireLate(item, decision.decision, by) }
        const waited = waitingHere(item.id) > 0 || approvals.watched(item.id)
        let rule: RuleView | undefined
        if (decision.decision === 'approve' && decision.scope !== 'once') rule = this.ruleFor(item, decision)
        else if (decision.decision === 'approve' && decision.rule !== undefined) {
          throw new ApprovalError('approval.invalid_decision', 'rule options (scope, TTL, matcher) go with --scope rule only.', { id: item.id })
        }
        const nobody = ' Nobody was waiting for it any more, so it is marked expired (the agent may ask again).'
        const reason =
          decision.decision === 'deny'
            ? decision.reason
            : `approved ${decision.scope === 'once' ? 'once' : decision.scope === 'session' ? 'for this session' : 'as a rule'}`
        const record: ApprovalDecisionView = {
          decision: decision.decision,
          ...(decision.decision === 'approve' ? { scope: decision.scope } : {}),
          reason: waited ? reason : `${reason}.${nobody}`,
          by,
          ...(rule ? { ruleId: rule.id } : {}),
          decidedAt: new Date().toISOString(),
          delivered: 0
        }
        const status: ApprovalStatus = !waited ? 'expired' : decision.decision === 'approve' ? 'approved' : 'denied'
        if (!approvals.decide(item.id, status, record)) throw alreadyDecided(approvals.get(item.id) ?? item)
        this.options.store.events.append('approval.decided', {
          approvalId: item.id,
          decision: decision.decision,
          scope: record.scope ?? null,
          by,
          ruleId: rule?.id ?? null,
          status
        })
        return { item: approvals.get(item.id)!, ...(rule ? { rule } : {}) }
      })
      .immediate()
  }

  /** Expires a pending item (timeout, restart, its calls went away); false when it was already decided. */
  expire(id: string, by: DecidedBy, reason: string): boolean {
    const changed = this.options.store.approvals.decide(id, 'expired', { decision: 'expire', reason, by, decidedAt: new Date().toISOString(), delivered: 0 })
    if (changed) this.options.store.events.append('approval.expired', { approvalId: id, by })
    return changed
  }

  /** Expires an item a decision reached at or after its `expiresAt` (inside the decision's transaction); no rule is made. */
  private expireLate(item: ApprovalView, decision: 'approve' | 'deny', by: DecidedBy): ApprovalView {
    const reason = `the operator's ${decision === 'approve' ? 'approval' : 'denial'} came after the request expired at ${item.expiresAt}: it expired and is denied (fail closed)`
    if (!this.expire(item.id, by, reason)) throw alreadyDecided(this.options.store.approvals.get(item.id) ?? item)
    return this.options.store.approvals.get(item.id)!
  }

  private ruleFor(item: ApprovalView, decision: Extract<ReturnType<typeof approvalDecisionInputSchema.parse>, { decision: 'approve' }>): RuleView {
    const matcher = decision.scope === 'rule' ? (decision.rule?.matcher ?? item.proposedRule?.matcher) : item.proposedRule?.matcher
    if (!item.proposedRule || !matcher) {
      throw new ApprovalError('approval.not_rememberable', `Approval ${item.id} cannot be remembered: ${rememberHint(item)} Approve it once, or deny it.`, {
        id: item.id
      })
    }
    const scope = decision.scope === 'session' ? 'session' : (decision.rule?.scope ?? 'agent')
    if (scope === 'session' && item.sessionId === null)
      throw new ApprovalError('approval.not_rememberable', `Approval ${item.id} has no session to remember it for.`, { id: item.id })
    if (scope !== 'global' && item.agentId === null)
      throw new ApprovalError('approval.not_rememberable', `Approval ${item.id} has no agent to remember it for.`, { id: item.id })
    return this.options.rules.create({
      scope,
      agentId: item.agentId,
      sessionId: item.sessionId,
      matcher,
      riskFlags: item.proposedRule.riskFlags,
      ...(decision.scope === 'rule' && decision.rule?.ttlSeconds !== undefined ? { ttlSeconds: decision.rule.ttlSeconds } : {}),
      approvalId: item.id
    })
  }
}

function alreadyDecided(item: ApprovalView): ApprovalError {
  return new ApprovalError(
    'approval.already_decided',
    `Approval ${item.id} was already ${item.status}${item.decision ? ` (${item.decision.by})` : ''}; an item is decided once.`,
    { id: item.id, status: item.status }
  )
}

function rememberHint(item: ApprovalView): string {
  if (item.policyRule?.startsWith('classification.')) return 'a write-down or a read above the ceiling always reaches the operator.'
  if (item.policyRule?.startsWith('command.')) return 'Airlock could not fully analyse the command line.'
  if (item.kind !== 'action' && item.kind !== 'network') return `a ${item.kind.replace('_', '-')} request always reaches the operator.`
  if (commandsWereCut(item)) return 'the command line is too long to show whole (the item says what was left out), and a rule would cover what nobody saw.'
  if (item.tool === 'run_command') return 'a rule covers only plain commands (no wrappers, VAR= prefixes, redirections to files, expansions or redacted parts).'
  return 'its input cannot be pinned down by a rule (too large, or it holds redacted parts).'
}
