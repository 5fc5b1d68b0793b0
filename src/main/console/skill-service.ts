import { skillIdOf, type SkillChangedEvent, type SkillRevisionView, type SkillView } from '@shared/skills'
import type { SkillLedger, SkillProposal, SkillRevisionRecord } from '../actions'
import type { SkillRepository } from '../store'

/** Stable codes of the skill service's refusals. */
export type SkillDecisionErrorCode = 'skill.not_found' | 'skill.already_decided'

/** A refusal of an operator's decision on a skill revision: `code` is stable, the message names the revision. */
export class SkillDecisionError extends Error {
  override readonly name = 'SkillDecisionError'
  constructor(
    readonly code: SkillDecisionErrorCode,
    message: string,
    readonly payload: Record<string, unknown> = {}
  ) {
    super(message)
  }
}

/**
 * Skills as the operator sees and decides them (SPEC §6.4): each agent's skills with every
 * revision, and approve / reject of a revision that waits (`pending_approval → approved |
 * rejected`, once). It is also the `SkillLedger` port the skill actions record revisions through,
 * so a revision an agent's call recorded is announced like a decision (`onChange`).
 */
export class SkillService implements SkillLedger {
  constructor(private readonly options: { repository: SkillRepository; onChange?: (event: SkillChangedEvent) => void }) {}

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

  private decide(agentId: string, name: string, revision: number, state: 'approved' | 'rejected', reason?: string): SkillRevisionView {
    const decided = this.options.repository.decide(agentId, name, revision, state, reason)
    const label = `revision ${revision} of skill ${skillIdOf(agentId, name)}`
    if (!decided) {
      const existing = this.options.repository.get(agentId, name, revision)
      if (!existing) throw new SkillDecisionError('skill.not_found', `There is no ${label}.`, { agentId, name, revision })
      throw new SkillDecisionError('skill.already_decided', `The ${label} was already ${existing.state}; a decided revision does not change.`, { agentId, name, revision, state: existing.state })
    }
    this.options.onChange?.({ agentId, name, revision, change: state })
    return revisionView(decided)
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
