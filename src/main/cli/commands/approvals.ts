import { existsSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { approvalListKeys, approvalScopeSchema, ruleScopeSchema, type ApprovalDecisionInput, type ApprovalView } from '@shared/approvals'
import { ApprovalQueue, RuleService } from '../../console/approvals'
import { loadCommandAnalyzer } from '../../core'
import { airlockPaths, resolveHome } from '../../host'
import { openStore, type Store } from '../../store'
import { defineCommand, type CommandIo } from '../command'
import { CliError, UsageError } from '../cli-error'

/** How long `approve`/`deny` wait to see a running console hand the decision to the waiting calls. */
const deliveryWaitMs = 3000

/** The longest reason a denial carries (the agent is told it). */
const maxReasonLength = 2000

/**
 * `airlock approvals list [--all] [--json]`, `approvals approve <id> [--scope once|session|rule]
 * [--rule-scope session|agent|global] [--ttl SECONDS]`, `approvals deny <id> --reason TEXT`: the
 * operator's queue from a terminal (SPEC §7, §8.1). Decisions go through the home's database; a
 * running console sees them within a poll and resumes the waiting call. An item nobody waits for
 * any more is recorded as decided and marked expired, and the command says so.
 */
export const approvalsCommand = defineCommand({
  name: 'approvals',
  summary: 'List the approval queue; approve or deny a waiting request',
  usage:
    'airlock approvals list [--all] [--json] | approvals approve <id> [--scope once|session|rule] [--rule-scope session|agent|global] [--ttl SECONDS] | approvals deny <id> --reason TEXT  [--home DIR]',
  options: { all: 'flag', scope: 'text', 'rule-scope': 'text', ttl: 'text', reason: 'text' },
  async run({ options, positionals }, io) {
    const [action, id, ...rest] = positionals
    if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`)
    if (action === 'list') {
      if (id !== undefined) throw new UsageError('approvals list takes no argument')
      if (options.scope ?? options['rule-scope'] ?? options.ttl ?? options.reason) throw new UsageError('approvals list takes only --all and --json')
      return withQueue(options.home, ({ queue }) => printList(queue.list({ status: options.all ? 'all' : 'pending' }), options.json === true, io))
    }
    if (action !== 'approve' && action !== 'deny') throw new UsageError(`approvals takes list, approve or deny${action ? `, not ${JSON.stringify(action)}` : ''}`)
    if (id === undefined) throw new UsageError(`approvals ${action} needs the item's id (see airlock approvals list)`)
    if (options.all) throw new UsageError('--all is only for approvals list')
    // An id no item could have is simply not there (exit 1), whatever it holds.
    if (id.length > 128) throw new CliError('not_found', `There is no approval ${JSON.stringify(`${id.slice(0, 40)}…`)}.`)
    const decision = action === 'approve' ? approveInput(id, options) : denyInput(id, options.reason, options)
    return withQueue(options.home, async ({ queue, store }) => {
      const decided = queue.decide(decision, 'cli')
      const delivered = decided.status === 'expired' ? decided : await delivery(store, decided)
      if (options.json) io.out(JSON.stringify(delivered, null, 2))
      else for (const line of decisionLines(delivered, store)) io.out(line)
      return 0
    })
  }
})

function approveInput(id: string, options: { scope?: string; 'rule-scope'?: string; ttl?: string; reason?: string }): ApprovalDecisionInput {
  if (options.reason !== undefined) throw new UsageError('--reason is only for approvals deny')
  const scope = approvalScopeSchema.safeParse(options.scope ?? 'once')
  if (!scope.success) throw new UsageError(`--scope must be once, session or rule, got ${JSON.stringify(options.scope)}`)
  if (scope.data !== 'rule' && (options['rule-scope'] !== undefined || options.ttl !== undefined)) throw new UsageError('--rule-scope and --ttl go with --scope rule')
  const ruleScope = options['rule-scope'] === undefined ? undefined : ruleScopeSchema.safeParse(options['rule-scope'])
  if (ruleScope && !ruleScope.success) throw new UsageError(`--rule-scope must be session, agent or global, got ${JSON.stringify(options['rule-scope'])}`)
  const ttl = options.ttl === undefined ? undefined : /^[1-9]\d{0,7}$/.test(options.ttl) && Number(options.ttl) <= 365 * 24 * 3600 ? Number(options.ttl) : NaN
  if (Number.isNaN(ttl)) throw new UsageError(`--ttl must be a whole number of seconds from 1 to ${365 * 24 * 3600}, got ${JSON.stringify(options.ttl)}`)
  return {
    id,
    decision: 'approve',
    scope: scope.data,
    ...(scope.data === 'rule' ? { rule: { ...(ruleScope ? { scope: ruleScope.data } : {}), ...(ttl !== undefined ? { ttlSeconds: ttl } : {}) } } : {})
  }
}

function denyInput(id: string, reason: string | undefined, options: { scope?: string; 'rule-scope'?: string; ttl?: string }): ApprovalDecisionInput {
  if (options.scope ?? options['rule-scope'] ?? options.ttl) throw new UsageError('--scope, --rule-scope and --ttl are only for approvals approve')
  const text = reason?.trim() ?? ''
  if (text === '') throw new UsageError('approvals deny needs --reason TEXT (the agent is told it)')
  if (text.length > maxReasonLength) throw new UsageError(`--reason is ${text.length} characters; at most ${maxReasonLength}`)
  return { id, decision: 'deny', reason: text }
}

/** Opens the home's store for one command, with the queue and rules over it (not started: no polling here). */
export async function withQueue<T>(home: string | undefined, use: (context: { queue: ApprovalQueue; rules: RuleService; store: Store }) => T | Promise<T>): Promise<T> {
  const { database } = airlockPaths(resolveHome(home))
  if (!existsSync(database)) throw new CliError('not_found', `no Airlock database at ${database} (check --home or AIRLOCK_HOME)`)
  const store = openStore(database)
  try {
    const rules = new RuleService({ store, analyzer: loadCommandAnalyzer })
    return await use({ queue: new ApprovalQueue({ store, rules }), rules, store })
  } catch (error) {
    throw cliErrorOf(error)
  } finally {
    store.close()
  }
}

/** The queue's and the rules' refusals as the CLI's own: an unknown id or a second decision fails (exit 1), a bad decision is usage (2). */
export function cliErrorOf(error: unknown): unknown {
  const code = (error as { code?: unknown }).code
  const message = (error as Error).message
  if (code === 'approval.not_found' || code === 'rule.not_found') return new CliError('not_found', message)
  if (code === 'approval.already_decided' || code === 'rule.revoked' || code === 'approval.not_rememberable') return new CliError('conflict', message)
  if (code === 'approval.invalid_decision') return new UsageError(message.replace(/^Invalid decision: /, ''))
  return error
}

/** Waits a little for a running console to hand the decision to the calls waiting on it. */
async function delivery(store: Store, item: ApprovalView): Promise<ApprovalView> {
  const deadline = Date.now() + deliveryWaitMs
  let current = item
  while ((current.decision?.delivered ?? 0) === 0 && Date.now() < deadline) {
    await sleep(100)
    current = store.approvals.get(item.id) ?? current
  }
  return current
}

function decisionLines(item: ApprovalView, store: Store): string[] {
  const decision = item.decision!
  const lines: string[] = []
  const what = decision.decision === 'deny' ? `Denied ${item.id} (${decision.reason})` : `Approved ${item.id} ${decision.scope === 'once' ? 'once' : decision.scope === 'session' ? 'for this session' : 'as a rule'}`
  if (item.status === 'expired') lines.push(`${what}, but nobody was waiting for it any more: it is marked expired (the agent may ask again).`)
  else if (decision.delivered > 0) lines.push(`${what}: ${decision.delivered === 1 ? 'the waiting call was' : `${decision.delivered} waiting calls were`} told.`)
  else lines.push(`${what}: the console hands it to the waiting call when it next looks (within a second).`)
  const rule = decision.ruleId ? store.rules.get(decision.ruleId) : undefined
  if (rule) lines.push(`Rule ${rule.id} (${rule.scope}${rule.agentId ? ` ${rule.agentId}` : ''}${rule.expiresAt ? `, until ${rule.expiresAt}` : ''}): ${rule.description}`)
  return lines
}

function printList(items: ApprovalView[], json: boolean, io: CommandIo): number {
  if (json) {
    io.out(JSON.stringify(items.map((item) => Object.fromEntries(approvalListKeys.map((key) => [key, item[key]]))), null, 2))
    return 0
  }
  if (items.length === 0) {
    io.out('No approvals wait.')
    return 0
  }
  for (const item of items) {
    const left = Math.max(0, Math.round((Date.parse(item.expiresAt) - Date.now()) / 1000))
    const facts = [
      item.status === 'pending' ? `expires in ${left}s` : item.status,
      item.count > 1 ? `${item.count} requests` : '',
      item.status === 'pending' ? `${item.waiting} waiting` : '',
      item.riskFlags.length > 0 ? `flags: ${item.riskFlags.join(',')}` : '',
      item.policyRule ? `rule: ${item.policyRule}` : ''
    ].filter(Boolean)
    io.out(`${item.id}  ${item.agentId ?? '-'}  ${item.tool}  ${oneLine(item.summary)}  (${facts.join('; ')})`)
  }
  return 0
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ')
  return line.length > 160 ? `${line.slice(0, 160)}…` : line
}
