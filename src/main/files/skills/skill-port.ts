import type { SkillProposal, SkillRevisionRecord } from '@shared/skills'
import type { ApprovalDecision } from '../../core'

export type { SkillProposal, SkillRevisionRecord } from '@shared/skills'

/**
 * The port the skill actions record and read revisions through (SPEC §6.4). Actions never reach
 * the store or the console: the host gives them an implementation (the console's skill service),
 * which keeps revisions where the agent cannot write them.
 */
export interface SkillLedger {
  /** Every revision of an agent's skill, newest first (empty when it has none). */
  revisions(agentId: string, name: string): SkillRevisionRecord[]
  /**
   * Records `proposal` as the next revision, `pending_approval`, unless a `pending_approval` or
   * `approved` revision has the same content hash: that one is returned (`created: false`).
   */
  propose(agentId: string, name: string, proposal: SkillProposal): { revision: SkillRevisionRecord; created: boolean }
  /** One revision as it stands now (`run_skill` re-reads it while it waits for the operator), or undefined. */
  revision(agentId: string, name: string, revision: number): SkillRevisionRecord | undefined
  /**
   * What the approval handler answered about a revision that waits (`run_skill` asked it): approved
   * → `approved`, recorded as the approval queue's decision; the operator's explicit denial →
   * `rejected` with their reason; anything else (an expiry, a cancelled call, no decision) leaves
   * it waiting. Returns the revision as it now stands: a decision made meanwhile elsewhere (in
   * `airlock skills`) is never overwritten.
   */
  settleFromQueue(agentId: string, name: string, revision: number, decision: ApprovalDecision): SkillRevisionRecord | undefined
}
