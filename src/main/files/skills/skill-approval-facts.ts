import type { ApprovalRequest } from '../../core'
import type { SkillRevisionRecord } from './skill-port'

/** The rule named when a skill revision asks the operator: the code of a refusal of content not approved yet. */
export const skillApprovalRule = 'skill.not_approved'

/**
 * What makes a skill approval request the one it is (SPEC §7): kind `skill`, tool `run_skill`, the
 * agent, and the revision as input (skill, revision number, content hash), never the call's args:
 * the operator approves content, which then runs with any arguments. Every call waiting on one
 * revision is thus one queue item (identical requests are batched), no remembered rule ever
 * answers it (skill requests always reach a person), and the skill service finds the item again
 * from the same facts when the revision is decided in `airlock skills`.
 */
export function skillApprovalFacts(
  agentId: string,
  revision: Pick<SkillRevisionRecord, 'skillId' | 'revision' | 'contentHash'>
): Required<Pick<ApprovalRequest, 'approvalKind' | 'tool' | 'agentId' | 'rule' | 'riskFlags' | 'input'>> {
  return {
    approvalKind: 'skill',
    tool: 'run_skill',
    agentId,
    rule: skillApprovalRule,
    riskFlags: [],
    input: { skill: revision.skillId, revision: revision.revision, contentHash: revision.contentHash }
  }
}
