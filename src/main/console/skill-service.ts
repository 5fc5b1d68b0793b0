import { AirlockError } from '@shared/errors'
import { skillIdOf, type SkillChangedEvent, type SkillProposal, type SkillRevisionRecord, type SkillRevisionView, type SkillView } from '@shared/skills'
import { skillApprovalFacts, type SkillLedger } from '../files/skills'
import type { ApprovalDecision } from '../core'
import type { ApprovalRepository, EventRepository, SkillRepository } from '../store'
import { prepareRequest } from './approvals'

/** Stable codes of the skill service's refusals. */
export type SkillDecisionErrorCode = 'skill.not_found' | 'skill.already_decided'

/** A refusal of an operator's decision on a skill revision: `code` is stable, the message names the revision. */
export class SkillDecisionError extends AirlockError<SkillDecisionErrorCode> {}

/**
 * The approval queue's items as the skill service reads and withdraws them (the store's
 * `approvals` and audit `events`; the CLI and the host pass their store).
 */
export type SkillQueueItems = { approvals: Pick<ApprovalRepository, 'get' | 'findPending' | 'decide'>; events: Pick<EventRepository, 'append'> }

/** How the console's queue words an operator's denial to the waiting call (approval-waiters.ts): the reason follows. */
const operatorDenialWording = 'denied by the operator: '

/**
 * Skills as the operator sees and decides them (SPEC §6.4): each agent's skills with every
 * revision, and approve / reject of a revision that waits (`pending_approval → approved |
 * rejected`, once), from `airlock skills`, the console's `skills` contract, or the approval queue
 * (`settleFromQueue`, when `run_skill` asked). It is also the `SkillLedger` port the skill actions
 * record revisions through, so a revision an agent's call recorded is announced like a decision
 * (`onChange`). With `queue`, a revision decided here withdraws the queue item a `run_skill` call
 * may be waiting on (it expires, saying why), and the queue's denials are read from the store.
 */
export class SkillService implements SkillLedger {
  constructor(
    private readonly options: {
      repository: SkillRepository
      onChange?: (event: SkillChangedEvent) => void
      queue?: SkillQueueItems
      /** Who decides through this service, as a withdrawn queue item records it (default `console`). */
      decidedBy?: 'console' | 'cli'
    }
  ) {}

  /** An agent's skills, by name, each with its revisions newest first. */
  list(agentId: string): SkillView[] {
    const byName = new Map<string, SkillRevisionRecord[]>()
    for (const record of this.options.repository.listByAgent(agentId)) byName.set(record.name, [...(byName.get(record.name) ?? []), record])
    return [...byName].map(([name, revisions]) => ({
      skillId: skillIdOf(agentId, name),
      agentId,
      name,
      approvedRevision: revisions.find((revision) => revision.state === 'approved')?.revision ?? null,
      revisions: revisions.map(revisionView)
    }))
  }

  /** Approves a revision that waits: `run_skill` then runs content with exactly its hash. */
  approve(agentId: string, name: string, revision: number): SkillRevisionView {
    return this.decide(agentId, name, revision, 'approved')
  }

  /** Rejects a revision that waits, with the reason the agent is told when it tries to run it. */
  reject(agentId: string, name: string, revision: number, reason: string): SkillRevisionView {
    return this.decide(agentId, name, revision, 'rejected', reason)
  }

  /** The port: every revision of a skill, newest first. */
  revisions(agentId: string, name: string): SkillRevisionRecord[] {
    return this.options.repository.revisions(agentId, name)
  }

  /** The port: one revision as it stands now. */
  revision(agentId: string, name: string, revision: number): SkillRevisionRecord | undefined {
    return this.options.repository.get(agentId, name, revision)
  }

  /**
   * The port: what the approval handler answered when `run_skill` asked about a revision that
   * waits. Approved → approved, its reason saying it was the approval queue (the item) or the
   * handler; the operator's explicit denial in the queue → rejected with the operator's words;
   * an expiry, a cancelled wait or no decision leave it waiting. A revision decided meanwhile (in
   * `airlock skills`) stays as it was decided. Returns the revision as it now stands.
   */
  settleFromQueue(agentId: string, name: string, revision: number, decision: ApprovalDecision): SkillRevisionRecord | undefined {
    const current = this.options.repository.get(agentId, name, revision)
    if (current?.state !== 'pending_approval') return current
    if (decision.status === 'approved') {
      const via = decision.approvalId ? `the approval queue (item ${decision.approvalId})` : 'the approval handler'
      return this.decideOnce(agentId, name, revision, 'approved', `approved through ${via}: ${decision.reason}`)
    }
    const denial = this.operatorDenial(agentId, decision)
    return denial === undefined ? current : this.decideOnce(agentId, name, revision, 'rejected', denial)
  }

  /** The port: records content as a revision that waits (or finds the one it already is). */
  propose(agentId: string, name: string, proposal: SkillProposal): { revision: SkillRevisionRecord; created: boolean } {
    const result = this.options.repository.propose(agentId, name, proposal)
    if (result.created) this.options.onChange?.({ agentId, name, revision: result.revision.revision, change: 'proposed' })
    return result
  }

  /** Forgets an agent's revisions (it was removed), so an agent later created with its id inherits no approval. */
  forgetAgent(agentId: string): void {
    this.options.repository.removeAgent(agentId)
  }

  private decide(agentId: string, name: string, revision: number, state: 'approved' | 'rejected', reason?: string, fromQueue = false): SkillRevisionView {
    const decided = this.options.repository.decide(agentId, name, revision, state, reason)
    const label = `revision ${revision} of skill ${skillIdOf(agentId, name)}`
    if (!decided) {
      const existing = this.options.repository.get(agentId, name, revision)
      if (!existing) throw new SkillDecisionError('skill.not_found', `There is no ${label}.`, { agentId, name, revision })
      throw new SkillDecisionError('skill.already_decided', `The ${label} was already ${existing.state}; a decided revision does not change.`, {
        agentId,
        name,
        revision,
        state: existing.state
      })
    }
    if (!fromQueue) this.withdrawQueueItem(decided, reason)
    this.options.onChange?.({ agentId, name, revision, change: state })
    return revisionView(decided)
  }

  /** Decides from the queue's answer unless someone decided first; the revision as it then stands. */
  private decideOnce(agentId: string, name: string, revision: number, state: 'approved' | 'rejected', reason: string): SkillRevisionRecord | undefined {
    try {
      this.decide(agentId, name, revision, state, reason, true)
    } catch (error) {
      if (!(error instanceof SkillDecisionError)) throw error
    }
    return this.options.repository.get(agentId, name, revision)
  }

  /**
   * The operator's reason when a queue answer is their explicit denial of this agent's skill item,
   * else undefined (an expiry, a cancelled wait, Airlock stopping, another handler's refusal). The
   * item's stored status says so when the queue's store is at hand; without it, the wording the
   * queue gives only an operator's denial, on an answer that names its queue item.
   */
  private operatorDenial(agentId: string, decision: ApprovalDecision): string | undefined {
    if (decision.status !== 'denied' || !decision.approvalId) return undefined
    const { queue } = this.options
    if (queue) {
      const item = queue.approvals.get(decision.approvalId)
      const denied = item?.kind === 'skill' && item.agentId === agentId && item.status === 'denied' && item.decision?.decision === 'deny'
      return denied ? item.decision!.reason : undefined
    }
    return decision.reason.startsWith(operatorDenialWording) ? decision.reason.slice(operatorDenialWording.length) : undefined
  }

  /**
   * A revision decided here (not through the queue) withdraws the pending queue item of that
   * revision, found by the facts `run_skill` asked with: it expires with the reason, so it no
   * longer waits for a decision that was made, and a call waiting on it in another process
   * resumes within the queue's poll (one in this process re-reads its revision; see
   * skill-approval.ts). Needs the queue's store (`queue`); without it, the item expires in time.
   */
  private withdrawQueueItem(decided: SkillRevisionRecord, reason: string | undefined): void {
    const { queue } = this.options
    if (!queue) return
    const facts = skillApprovalFacts(decided.agentId, decided)
    const { batchKey } = prepareRequest(
      { requirementId: decided.skillId, kind: 'skill', scope: 'action_call', reason: '', summary: '', ...facts },
      undefined
    ).item
    const item = batchKey ? queue.approvals.findPending(batchKey, decided.agentId) : undefined
    if (!item) return
    const by = this.options.decidedBy ?? 'console'
    const why = `revision ${decided.revision} of skill ${decided.skillId} was ${decided.state} in airlock skills (${by})${reason ? `: ${reason}` : ''}; this request is withdrawn`
    if (queue.approvals.decide(item.id, 'expired', { decision: 'expire', reason: why, by, decidedAt: new Date().toISOString(), delivered: 0 })) {
      queue.events.append('approval.expired', { approvalId: item.id, by })
    }
  }
}

function revisionView(record: SkillRevisionRecord): SkillRevisionView {
  const { manifest } = record
  return {
    revision: record.revision,
    state: record.state,
    contentHash: record.contentHash,
    description: manifest.description,
    entry: manifest.entry,
    language: manifest.language,
    inputs: manifest.inputs ?? null,
    files: manifest.files,
    createdAt: record.createdAt,
    decidedAt: record.decidedAt,
    reason: record.reason
  }
}
