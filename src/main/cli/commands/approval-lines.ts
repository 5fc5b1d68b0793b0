import type { ApprovalView, RuleView } from '@shared/approvals'
import { shownCommandLimits } from '../../console/approvals'
import { visibleText } from '@shared/visible-text'

// What `airlock approvals` prints for people. Every line goes through `visibleText`: summaries,
// commands, previews and rule descriptions are the agent's text, and must not drive the terminal.

/** The most of a summary one `approvals list` line shows (`approvals show` prints all of it). */
const listSummaryChars = 160

/** One line per item for `approvals list`. */
export function listLines(items: readonly ApprovalView[], now = Date.now()): string[] {
  if (items.length === 0) return ['No approvals wait.']
  return items.map((item) => {
    const facts = [
      item.status === 'pending' ? `expires in ${secondsLeft(item, now)}s` : item.status,
      item.count > 1 ? `${item.count} requests` : '',
      item.status === 'pending' ? `${item.waiting} waiting` : '',
      item.riskFlags.length > 0 ? `flags: ${item.riskFlags.join(',')}` : '',
      item.policyRule ? `rule: ${item.policyRule}` : ''
    ].filter(Boolean)
    const summary =
      item.summary.length > listSummaryChars ? `${item.summary.slice(0, listSummaryChars)}…(+${item.summary.length - listSummaryChars} chars)` : item.summary
    return visibleText(`${item.id}  ${item.agentId ?? '-'}  ${item.tool}  ${summary}  (${facts.join('; ')})`)
  })
}

/**
 * `approvals show`: the whole item, one fact per line: summary, kind, reason, policy rule, risk
 * flags, classification, every parsed command (cuts are marked in the item itself), the preview,
 * how many requests it stands for and how many calls wait, the rule it would become, the decision.
 */
export function showLines(item: ApprovalView, now = Date.now()): string[] {
  const { classification, decision, proposedRule } = item
  const lines = [
    `Approval ${item.id}: ${item.status}${item.status === 'pending' ? ` (expires in ${secondsLeft(item, now)}s)` : ''}`,
    `  agent:          ${item.agentId ?? '-'}  session ${item.sessionId ?? '-'}`,
    `  tool:           ${item.tool}  (kind ${item.kind})`,
    `  summary:        ${item.summary}`,
    `  reason:         ${item.reason}`,
    `  policy rule:    ${item.policyRule ?? '-'}`,
    `  risk flags:     ${item.riskFlags.length > 0 ? item.riskFlags.join(', ') : 'none'}`,
    `  classification: ${
      classification
        ? Object.entries(classification)
            .map(([key, value]) => `${key} ${value}`)
            .join(', ')
        : 'none'
    }`,
    `  requests:       ${item.count} (${item.waiting} waiting now)`,
    `  created:        ${item.createdAt}  expires ${item.expiresAt}`,
    `  commands:       ${item.commands.length === 0 ? 'none' : item.commands.length}`,
    ...item.commands.map(
      (argv, index) =>
        `    ${index + 1}. ${argv.map((word, at) => shownWord(word, index === shownCommandLimits.commands || at === shownCommandLimits.words)).join(' ')}`
    ),
    `  preview:        ${item.preview === null ? 'none' : `${item.preview.length} characters`}`,
    ...(item.preview === null
      ? []
      : item.preview
          .replace(/\n$/, '')
          .split('\n')
          .map((line) => `    | ${line}`)),
    `  proposed rule:  ${proposedRule ? `${proposedRule.description}${proposedRule.riskFlags.length > 0 ? ` (flags: ${proposedRule.riskFlags.join(', ')})` : ''}` : 'none (approve once, or deny)'}`,
    `  decision:       ${
      decision
        ? `${decision.decision}${decision.scope ? ` ${decision.scope}` : ''} by ${decision.by} at ${decision.decidedAt}${decision.ruleId ? `, rule ${decision.ruleId}` : ''}, delivered to ${decision.delivered}: ${decision.reason}`
        : 'none yet'
    }`
  ]
  return lines.map(visibleText)
}

/** What `approve`/`deny` print about the decision that landed, and the rule it made. */
export function decisionLines(item: ApprovalView, rule: RuleView | undefined): string[] {
  const decision = item.decision!
  const lines: string[] = []
  const what =
    decision.decision === 'deny'
      ? `Denied ${item.id} (${decision.reason})`
      : `Approved ${item.id} ${decision.scope === 'once' ? 'once' : decision.scope === 'session' ? 'for this session' : 'as a rule'}`
  if (item.status === 'expired') lines.push(`${what}, but nobody was waiting for it any more: it is marked expired (the agent may ask again).`)
  else if (decision.delivered > 0)
    lines.push(`${what}: ${decision.delivered === 1 ? 'the waiting call was' : `${decision.delivered} waiting calls were`} told.`)
  else lines.push(`${what}: the console hands it to the waiting call when it next looks (within a second).`)
  if (rule)
    lines.push(
      `Rule ${rule.id} (${rule.scope}${rule.agentId ? ` ${rule.agentId}` : ''}${rule.expiresAt ? `, until ${rule.expiresAt}` : ''}): ${rule.description}`
    )
  return lines.map(visibleText)
}

/**
 * A command word as typed back: plain words bare, anything else quoted (so spaces and empties
 * show). A cut's marker is bare only where the item puts it (`marker`: past the kept commands or
 * words), so an agent's word that reads like one is still shown quoted.
 */
function shownWord(word: string, marker: boolean): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) || (marker && /^… \d+ more (words?|commands?) not shown$/.test(word)) ? word : JSON.stringify(word)
}

function secondsLeft(item: ApprovalView, now: number): number {
  return Math.max(0, Math.round((Date.parse(item.expiresAt) - now) / 1000))
}
