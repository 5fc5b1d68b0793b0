import { hiddenCharactersFlag, type ApprovalDecisionView, type ApprovalView } from '@shared/approvals'
import type { BadgeTone } from '../../../ui'

/** The queue as the operator reads it: newest first (ties by id, so the order never jumps). */
export function newestFirst(items: readonly ApprovalView[]): ApprovalView[] {
  return [...items].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** The id `delta` places from `current` in `ids` (clamped); the first id when nothing in the list is selected. */
export function stepSelection(ids: readonly string[], current: string | undefined, delta: number): string | undefined {
  if (ids.length === 0) return undefined
  const at = current === undefined ? -1 : ids.indexOf(current)
  if (at < 0) return ids[0]
  return ids[Math.min(ids.length - 1, Math.max(0, at + delta))]
}

/**
 * What to select once `removed` left the list (the operator decided it): the item that took its
 * place (the next older one), else the one above it, else nothing. Triage then flows down the queue.
 */
export function selectionAfterRemoval(ids: readonly string[], removed: string): string | undefined {
  const at = ids.indexOf(removed)
  const rest = ids.filter((id) => id !== removed)
  if (at < 0) return rest[0]
  return rest[Math.min(at, rest.length - 1)]
}

const riskFacts: Record<string, { tone: BadgeTone; hint: string }> = {
  [hiddenCharactersFlag]: {
    tone: 'bad',
    hint: 'its text holds hidden characters (bidi controls, zero-width characters, escapes) that read differently from what runs: each is shown escaped and marked'
  },
  deletion: { tone: 'bad', hint: 'removes files or folders' },
  network: { tone: 'bad', hint: 'reaches the network' },
  isolation_fallback: { tone: 'bad', hint: 'may run without a sandbox (unsafe fallback)' },
  known_secret: { tone: 'bad', hint: 'touches a known secret' },
  package_install: { tone: 'warn', hint: 'installs packages (their scripts run)' },
  vcs_write: { tone: 'warn', hint: 'changes version control (commit, push, reset…)' },
  config_write: { tone: 'warn', hint: 'changes configuration or package scripts' },
  long_runtime: { tone: 'info', hint: 'asks for a long run time' },
  plants_command: {
    tone: 'bad',
    hint: 'writes a command that runs later (a package script, a hook, a CI step) which Airlock would stop or ask about if it were typed'
  }
}

/** A risk flag's tone and a plain-words hint (a flag Airlock adds later shows neutral, named as is). */
export function riskOf(flag: string): { tone: BadgeTone; label: string; hint: string } {
  const known = riskFacts[flag]
  return { tone: known?.tone ?? 'neutral', label: flag.replace(/_/g, ' '), hint: known?.hint ?? flag }
}

/** Why an item cannot be approved for the session, or undefined when it can. */
export function sessionBlocker(item: Pick<ApprovalView, 'proposedRule' | 'sessionId' | 'agentId'>): string | undefined {
  if (!item.proposedRule) return rememberBlocker(item)
  if (item.sessionId === null || item.agentId === null) return 'It came from no agent session, so there is no session to remember it for.'
  return undefined
}

/** Why an item cannot become a rule, or undefined when it can. */
export function rememberBlocker(item: Pick<ApprovalView, 'proposedRule'>): string | undefined {
  return item.proposedRule
    ? undefined
    : 'Airlock offers no rule for this request (it must be decided every time, or it cannot be pinned down safely): approve it once or deny it.'
}

/** The time left before an item expires, as `9m 48s` / `48s` / `2h 5m`; `expired` once past. */
export function timeLeft(expiresAt: string, now: number): string {
  const s = Math.floor((Date.parse(expiresAt) - now) / 1000)
  if (Number.isNaN(s)) return '—'
  if (s <= 0) return 'expired'
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`
  const h = Math.floor(m / 60)
  if (h < 48) return `${h}h ${m % 60}m`
  return `${Math.floor(h / 24)}d`
}

/** Seconds left before an item expires (negative once past). */
export function secondsLeft(expiresAt: string, now: number): number {
  return Math.floor((Date.parse(expiresAt) - now) / 1000)
}

/** A decided item's outcome in one line: `Approved for this session`, `Denied`, `Expired`. */
export function outcomeTitle(decision: ApprovalDecisionView): string {
  if (decision.decision === 'deny') return 'Denied'
  if (decision.decision === 'expire') return 'Expired'
  return decision.scope === 'session' ? 'Approved for this session' : decision.scope === 'rule' ? 'Approved as a rule' : 'Approved once'
}

/** The tone of an item's status badge. */
export function statusTone(status: ApprovalView['status']): BadgeTone {
  return status === 'approved' ? 'ok' : status === 'denied' ? 'bad' : status === 'expired' ? 'neutral' : 'warn'
}

/**
 * The summary without the agent's name in front (`coder: rm -rf build` → `rm -rf build`): the
 * row and the pane name the agent already. Anything else is shown exactly as the host wrote it.
 */
export function summaryText(item: Pick<ApprovalView, 'summary' | 'agentId'>): string {
  const prefix = item.agentId ? `${item.agentId}: ` : undefined
  return prefix && item.summary.startsWith(prefix) && item.summary.length > prefix.length ? item.summary.slice(prefix.length) : item.summary
}

/** A write-down (`CONFIDENTIAL → PUBLIC`) when the request reads one level and writes to another, else undefined. */
export function writeDownOf(classification: ApprovalView['classification']): string | undefined {
  return classification?.reads && classification.sink ? `${classification.reads} → ${classification.sink}` : undefined
}

/** A session taint worth a badge: anything above PUBLIC. */
export function taintOf(classification: ApprovalView['classification']): string | undefined {
  return classification?.taint && classification.taint !== 'PUBLIC' ? classification.taint : undefined
}

/** A write-down in words (`reads CONFIDENTIAL → writes to PUBLIC`), or the parts there are. */
export function classificationLine(classification: ApprovalView['classification']): string | undefined {
  if (!classification) return undefined
  const flow = [classification.reads && `reads ${classification.reads}`, classification.sink && `writes to ${classification.sink}`].filter(Boolean).join(' → ')
  const parts = [flow, classification.taint && `session taint ${classification.taint}`].filter(Boolean)
  return parts.length > 0 ? parts.join(' · ') : undefined
}
