import { redactText, type ActionContext, type ActionOutcome, type ApprovalDecision } from '../../core'
import { skillApprovalFacts, skillApprovalRule, type SkillFile, type SkillLedger, type SkillRevisionRecord } from '../../files/skills'
import { skillApprovalPreview } from './skill-approval-preview'

/**
 * How often a call waiting for the operator re-reads its revision (ms). A revision decided in
 * `airlock skills` (this process's IPC or another process's CLI) ends the wait within this, even
 * though the queue item itself was not decided: the call then goes by the revision's new state.
 */
const recheckMs = 500

/** What the handler answered, as `meta.skill.approval` keeps it. */
export type SkillApprovalRecord = { status: ApprovalDecision['status']; reason: string; approvalId?: string }

/** The revision may run (approved now, by the queue or meanwhile in `airlock skills`), or the call ends with `outcome`. */
export type SkillApprovalResult = { approved: SkillRevisionRecord; approval: SkillApprovalRecord } | { outcome: ActionOutcome }

/**
 * Asks the operator about a revision that waits, through the application's approval handler (the
 * `console` queue: one item per revision, batched across calls; see `skillApprovalFacts`), with the
 * preview of the very bytes this call read and hashed, and waits up to the agent's
 * `approvalTimeoutSeconds`. The answer goes to the skill ledger, which decides the revision
 * (approved; rejected only on the operator's explicit denial); the call then goes by the revision
 * as it stands: approved → it runs in this call, rejected → `blocked`, still waiting → `blocked`
 * (denied, expired) or `approval_required` (nobody could decide: `fail_closed`).
 */
export async function askForRevision(
  ledger: SkillLedger,
  context: Pick<ActionContext, 'agent' | 'callId' | 'manager' | 'signal'>,
  revision: SkillRevisionRecord,
  files: readonly SkillFile[],
  earlier: readonly SkillRevisionRecord[]
): Promise<SkillApprovalResult> {
  const { agent } = context
  const secrets = agent.secrets ?? []
  const approvedBefore = earlier.find((other) => other.state === 'approved' && other.revision !== revision.revision)
  const waiting = new AbortController()
  const recheck = setInterval(() => {
    try {
      if (ledger.revision(agent.agentId, revision.name, revision.revision)?.state !== 'pending_approval') waiting.abort()
    } catch {
      // The store is closing: the call's own signal ends the wait.
    }
  }, recheckMs)
  let decision: ApprovalDecision
  try {
    decision = await context.manager.approval.resolve({
      requirementId: `skill:${context.callId}`,
      kind: 'skill',
      scope: 'action_call',
      ownerId: agent.agentId,
      actionCallId: context.callId,
      ...skillApprovalFacts(agent.agentId, revision),
      sessionId: agent.sessionId,
      reason: `revision ${revision.revision} of skill ${revision.skillId} has not been approved: only content the operator approved runs`,
      summary: redactText(
        `${agent.agentId}: run_skill ${revision.name}: approve revision ${revision.revision} of skill ${revision.skillId} (content ${revision.contentHash.slice(0, 23)}…)?`,
        secrets
      ),
      preview: skillApprovalPreview(revision, files, approvedBefore, secrets),
      timeoutSeconds: agent.profile.approvalTimeoutSeconds,
      signal: AbortSignal.any([context.signal, waiting.signal])
    })
  } finally {
    clearInterval(recheck)
  }
  context.signal.throwIfAborted()
  const approval: SkillApprovalRecord = {
    status: decision.status,
    reason: decision.reason,
    ...(decision.approvalId ? { approvalId: decision.approvalId } : {})
  }
  const now = ledger.settleFromQueue(agent.agentId, revision.name, revision.revision, decision)
  if (now?.state === 'approved') return { approved: now, approval }
  return { outcome: notRun(now ?? revision, approval, now === undefined) }
}

/** The outcome of a call whose revision did not get approved: rejected, or still waiting (denied, expired, or nobody could decide). */
function notRun(revision: SkillRevisionRecord, approval: SkillApprovalRecord, gone: boolean): ActionOutcome {
  const label = `Skill ${revision.name} revision ${revision.revision}`
  const skill = {
    skillId: revision.skillId,
    revision: revision.revision,
    state: gone ? 'removed' : revision.state,
    contentHash: revision.contentHash,
    approval
  }
  const blocked = (code: string, message: string): ActionOutcome => ({
    status: 'blocked',
    error: { code, message },
    meta: { policy: { decision: 'ask', rule: skillApprovalRule, reason: message }, skill }
  })
  if (gone) return blocked('skill.not_found', `${label} no longer exists (its agent's skills were forgotten).`)
  if (revision.state === 'rejected') {
    return blocked(
      'skill.rejected',
      `${label} was rejected by the operator${revision.reason ? `: ${revision.reason}` : ''}. Change the skill and save it again with persist_skill.`
    )
  }
  if (approval.status === 'pending') {
    const message = `${label} needs the operator's approval, and nobody could decide now (${approval.reason}); run_skill asks again when you call it.`
    return {
      status: 'approval_required',
      error: { code: skillApprovalRule, message },
      meta: { policy: { decision: 'ask', rule: skillApprovalRule, reason: message }, skill }
    }
  }
  return blocked(skillApprovalRule, `${label} was not approved: ${approval.reason}. It still waits for the operator; run_skill asks again when you call it.`)
}
