import type { ApprovalRequest } from '../policy-approval'
import type { PreToolCallDecision } from './action-hooks'
import type { ActionCall, AnyActionSpec } from './action-spec'
import { redactText, redactValue } from './redaction'

/** A call that waits for the operator: the call, its spec and validated input, what the policy decided, the call's signal. */
export type ApprovalAsked = { call: ActionCall; callId: string; spec: AnyActionSpec; input: unknown; decision: PreToolCallDecision; signal: AbortSignal }

/**
 * What the approval queue is asked about a call: what it shows and what remembered rules match
 * on, all redacted — the validated input, the commands as the policy parsed them and whether it
 * saw the whole line (no `command.*` concern), the classification facts, a preview (the diff of a
 * file tool), and the call's signal (the wait ends with the call).
 */
export async function approvalRequest({ call, callId, spec, input, decision, signal }: ApprovalAsked): Promise<ApprovalRequest> {
  const secrets = call.agent.secrets ?? []
  const summary = redactText(spec.summarize?.(input as never) ?? `${spec.name} ${JSON.stringify(redactValue(input, { maxStringBytes: 200 }))}`, secrets)
  let preview: string | undefined
  try {
    preview = await spec.preview?.({ input: input as never, agent: call.agent })
  } catch {
    // A preview that fails leaves the request without one: the queue still shows the input.
    preview = undefined
  }
  const classification = { ...decision.classification, ...(decision.taint ? { taint: decision.taint } : {}) }
  const request: ApprovalRequest = {
    requirementId: callId,
    kind: 'action',
    scope: 'action_call',
    ownerId: call.agent.agentId,
    actionCallId: callId,
    // The policy's reason quotes the input (`rm -rf <path> deletes <path>`): redacted like the rest.
    reason: redactText(decision.reason ?? (spec.approval === 'always' ? `${spec.name} always asks` : 'policy asks'), secrets),
    summary: `${call.agent.agentId}: ${summary}`,
    tool: spec.name,
    agentId: call.agent.agentId,
    sessionId: call.agent.sessionId,
    rule: decision.rule,
    riskFlags: decision.riskFlags ?? [],
    timeoutSeconds: call.agent.profile.approvalTimeoutSeconds,
    approvalKind: decision.rule === 'classification.write_down' ? 'write_down' : 'action',
    input: redactValue(input, { secrets }),
    ...(revealable(input, secrets) ? { revealable: input } : {}),
    ...(decision.commands ? { commands: decision.commands.map((argv) => argv.map((word) => redactText(word, secrets))) } : {}),
    ...(decision.planted ? { planted: redactValue(decision.planted, { secrets }) as NonNullable<ApprovalRequest['planted']> } : {}),
    analysed: !(decision.rule ?? '').startsWith('command.'),
    ...(Object.keys(classification).length > 0 ? { classification } : {}),
    ...(preview ? { preview: redactText(preview, secrets) } : {}),
    signal
  }
  return request
}

/** Whether redaction hides something of a call's input (the operator may then reveal it while the call waits). */
function revealable(input: unknown, secrets: readonly string[]): boolean {
  return JSON.stringify(redactValue(input, { secrets })) !== JSON.stringify(input)
}
