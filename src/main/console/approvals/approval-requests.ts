import { createHash } from 'node:crypto'
import { classificationSchema } from '@shared/agents'
import type { ApprovalView } from '@shared/approvals'
import { canonicalJson, type ApprovalRequest, type CommandAnalyzer } from '../../core'
import type { NewApproval } from '../../store'
import { describeMatcher, proposeMatcher, type RequestFacts } from './rule-matchers'

/** How long an item waits when neither the request nor the agent's profile says (SPEC §7: 10 minutes). */
export const defaultApprovalTimeoutSeconds = 600

/** Bounds of what an item shows: the queue is for people, and a hostile agent chooses what it asks. */
const bounds = { summary: 500, reason: 2000, tool: 128, preview: 64 * 1024, commands: 64, words: 64, word: 1024, flags: 32, flag: 64 }

/** A request made ready for the queue: the facts rules match on, the item as stored, and how long it may wait. */
export type PreparedRequest = {
  facts: RequestFacts
  item: Omit<NewApproval, 'id' | 'createdAt' | 'expiresAt'>
  timeoutSeconds: number
}

/**
 * Turns an approval request into a queue item: bounded text for people, the parsed commands and
 * preview as given (never re-read from the summary), the rule it could become, and its batch key.
 * Identical requests of one agent (same tool, same redacted input, same policy rule and flags)
 * share a key; a request without an agent (a resource requirement) is keyed by what it says.
 */
export function prepareRequest(request: ApprovalRequest, analyzer: CommandAnalyzer | undefined): PreparedRequest {
  const kind = request.approvalKind ?? (request.tool ? 'action' : 'resource')
  const tool = cut(request.tool ?? request.kind, bounds.tool)
  const riskFlags = [...new Set(request.riskFlags ?? [])].slice(0, bounds.flags).map((flag) => cut(flag, bounds.flag))
  const facts: RequestFacts = {
    tool,
    kind,
    agentId: request.agentId ?? null,
    input: request.input,
    commands: request.commands ?? [],
    analysed: request.analysed === true,
    policyRule: request.rule ?? null,
    riskFlags
  }
  const matcher = proposeMatcher(facts, analyzer)
  const batchKey = sha256(
    canonicalJson(
      request.agentId
        ? { agentId: request.agentId, kind, tool, input: request.input ?? null, policyRule: facts.policyRule, riskFlags: [...riskFlags].sort(), commands: facts.commands }
        : { kind, tool, summary: request.summary, reason: request.reason }
    )
  )
  return {
    facts,
    timeoutSeconds: Math.min(Math.max(Math.trunc(request.timeoutSeconds ?? defaultApprovalTimeoutSeconds), 1), 7 * 24 * 3600),
    item: {
      agentId: request.agentId ?? null,
      sessionId: request.sessionId || null,
      tool,
      summary: cut(request.summary, bounds.summary),
      riskFlags,
      kind,
      reason: cut(request.reason, bounds.reason),
      policyRule: request.rule ? cut(request.rule, bounds.tool) : null,
      commands: facts.commands.slice(0, bounds.commands).map((argv) => argv.slice(0, bounds.words).map((word) => cut(word, bounds.word))),
      preview: request.preview === undefined ? null : cut(request.preview, bounds.preview),
      classification: classificationOf(request.classification),
      proposedRule: matcher ? { matcher, description: describeMatcher(matcher), riskFlags } : null,
      batchKey
    }
  }
}

function classificationOf(value: ApprovalRequest['classification']): ApprovalView['classification'] {
  const out: NonNullable<ApprovalView['classification']> = {}
  for (const key of ['reads', 'sink', 'taint'] as const) {
    const parsed = classificationSchema.safeParse(value?.[key])
    if (parsed.success) out[key] = parsed.data
  }
  return Object.keys(out).length > 0 ? out : null
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters in all)` : text
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
