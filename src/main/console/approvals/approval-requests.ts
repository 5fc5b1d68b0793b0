import { createHash, createHmac, randomBytes } from 'node:crypto'
import { classificationSchema } from '@shared/agents'
import { approvalTexts, hiddenCharactersFlag, type ApprovalView } from '@shared/approvals'
import { hasHiddenCharacters } from '@shared/visible-text'
import { canonicalJson, type ApprovalRequest, type CommandAnalyzer } from '../../core'
import type { NewApproval } from '../../store'
import { describeMatcher, proposeMatcher, type RequestFacts } from './rule-matchers'

/** How long an item waits when neither the request nor the agent's profile says (SPEC §7: 10 minutes). */
export const defaultApprovalTimeoutSeconds = 600

/**
 * Bounds of what an item shows: the queue is for people, and a hostile agent chooses what it asks.
 * Every cut is marked where it is (see `shownCommands`, `shownSummary`), and a line whose commands
 * were cut is never proposed as a rule: the operator would remember what they could not see.
 */
const bounds = { summary: 500, summaryTail: 160, reason: 2000, tool: 128, preview: 64 * 1024, commands: 64, words: 64, word: 1024, flags: 32, flag: 64 }

/**
 * How many commands, and words per command, an item keeps: a cut's marker entry (or word) sits
 * exactly at this index, which is how a printer tells it from an agent's word that reads the same.
 */
export const shownCommandLimits = { commands: bounds.commands, words: bounds.words } as const

/** The last entry of an item's commands when some were left out: `… 7 more commands not shown`. */
const moreCommands = /^… \d+ more commands? not shown$/

/** A request made ready for the queue: the facts rules match on, the item as stored, and how long it may wait. */
export type PreparedRequest = {
  facts: RequestFacts
  item: Omit<NewApproval, 'id' | 'createdAt' | 'expiresAt'>
  timeoutSeconds: number
}

/**
 * Turns an approval request into a queue item: bounded text for people, the parsed commands and
 * preview as given (never re-read from the summary), the rule it could become, and its batch key.
 * Identical requests of one agent (same tool, same redacted input, same policy rule, flags and
 * classification facts: a write-down of RESTRICTED data is not the question the operator saw about
 * CONFIDENTIAL data) share a key; a request without an agent (a resource requirement) is keyed by what it says.
 * Text that holds hidden characters adds the `hidden_characters` flag first: the consoles mark the
 * item, and a rule made from a request without it never answers one with it (the operator saw
 * no such text when they made the rule).
 */
export function prepareRequest(request: ApprovalRequest, analyzer: CommandAnalyzer | undefined): PreparedRequest {
  const kind = request.approvalKind ?? (request.tool ? 'action' : 'resource')
  const tool = cut(request.tool ?? request.kind, bounds.tool)
  const riskFlags = [...new Set([...(hidesText(request) ? [hiddenCharactersFlag] : []), ...(request.riskFlags ?? [])])]
    .slice(0, bounds.flags)
    .map((flag) => cut(flag, bounds.flag))
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
  const shown = shownCommands(facts.commands)
  const matcher = shown.cut ? null : proposeMatcher(facts, analyzer)
  const batchKey = sha256(
    canonicalJson(
      request.agentId
        ? {
            agentId: request.agentId,
            kind,
            tool,
            input: request.input ?? null,
            policyRule: facts.policyRule,
            riskFlags: [...riskFlags].sort(),
            commands: facts.commands,
            classification: classificationOf(request.classification),
            // Two calls that differ only in what redaction hid are two questions, not one batch.
            ...(request.revealable !== undefined ? { hidden: hiddenInputKey(request.revealable) } : {})
          }
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
      summary: shownSummary(request.summary),
      riskFlags,
      kind,
      reason: cut(request.reason, bounds.reason),
      policyRule: request.rule ? cut(request.rule, bounds.tool) : null,
      commands: shown.commands,
      preview: request.preview === undefined ? null : cut(request.preview, bounds.preview),
      planted: (request.planted ?? []).slice(0, bounds.commands).map((entry) => ({
        where: cut(entry.where, bounds.tool),
        line: cut(entry.line, bounds.word * 4),
        commands: shownCommands(entry.commands).commands,
        riskFlags: entry.riskFlags.slice(0, bounds.flags).map((flag) => cut(flag, bounds.flag)),
        verdict: entry.verdict,
        ...(entry.rule ? { rule: cut(entry.rule, bounds.tool) } : {})
      })),
      classification: classificationOf(request.classification),
      proposedRule: matcher ? { matcher, description: describeMatcher(matcher), riskFlags } : null,
      batchKey
    }
  }
}

/**
 * Whether the text the operator will read of a request (its tool, summary, reason, parsed words or
 * preview, whole: before any cut) holds a character that hides or reorders what is read.
 */
function hidesText(request: ApprovalRequest): boolean {
  const texts = approvalTexts({
    tool: request.tool ?? request.kind,
    summary: request.summary,
    reason: request.reason,
    commands: request.commands ?? [],
    preview: request.preview ?? null,
    planted: request.planted ?? []
  })
  return texts.some(hasHiddenCharacters)
}

/** Whether an item's commands were cut (its last entry says how many more there were). */
export function commandsWereCut(item: Pick<ApprovalView, 'commands'>): boolean {
  const last = item.commands.at(-1)
  return (
    (last?.length === 1 && moreCommands.test(last[0]!)) ||
    item.commands.some((argv) => argv.some((word) => /^… \d+ more words? not shown$|… \(\d+ characters in all\)$/.test(word)))
  )
}

/**
 * The parsed commands as the item keeps them: at most 64 commands of at most 64 words of at most
 * 1024 characters. Each cut says so where it is (a last word `… 3 more words not shown`, a last
 * entry `… 7 more commands not shown`, a word's `… (N characters in all)`), so nothing that runs
 * is silently out of sight; `cut` tells the caller not to propose a rule.
 */
function shownCommands(commands: readonly (readonly string[])[]): { commands: string[][]; cut: boolean } {
  let wasCut = commands.length > bounds.commands
  const shown = commands.slice(0, bounds.commands).map((argv) => {
    const words = argv.slice(0, bounds.words).map((word) => {
      if (word.length > bounds.word) wasCut = true
      return cut(word, bounds.word)
    })
    if (argv.length > bounds.words) {
      wasCut = true
      words.push(`… ${more(argv.length - bounds.words, 'word')} not shown`)
    }
    return words
  })
  if (commands.length > bounds.commands) shown.push([`… ${more(commands.length - bounds.commands, 'command')} not shown`])
  return { commands: shown, cut: wasCut }
}

/**
 * The summary as the item keeps it: a long one keeps its head and its tail (where a long hostile
 * line tends to put what it hides) and says how much is left out between, `…(+N chars)…`.
 * `airlock approvals show` prints the parsed commands and the preview beside it.
 */
function shownSummary(text: string): string {
  if (text.length <= bounds.summary) return text
  let head = bounds.summary - bounds.summaryTail
  let tail = text.length - bounds.summaryTail
  // Never split a surrogate pair: the halves would print as replacement characters.
  if (/[\ud800-\udbff]/.test(text[head - 1]!)) head -= 1
  if (/[\udc00-\udfff]/.test(text[tail]!)) tail += 1
  return `${text.slice(0, head)} …(+${tail - head} chars)… ${text.slice(tail)}`
}

function more(count: number, noun: string): string {
  return `${count} more ${noun}${count === 1 ? '' : 's'}`
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

/** A key of this process for `hiddenInputKey` (never stored: a batch key must not let anyone test a guess of a secret). */
const hiddenKey = randomBytes(32)

/**
 * What tells apart two requests that read the same once redacted: a keyed hash of the input as the
 * agent sent it. Keyed per process, so the stored batch key says nothing about the secret; after a
 * restart such a request makes a new item instead of joining its old one.
 */
function hiddenInputKey(input: unknown): string {
  return createHmac('sha256', hiddenKey).update(canonicalJson(input)).digest('hex')
}
