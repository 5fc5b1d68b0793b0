import { AirlockError } from '@shared/errors'
import { setTimeout as sleep } from 'node:timers/promises'
import { approvalListKeys, approvalScopeSchema, ruleScopeSchema, type ApprovalDecisionInput, type ApprovalView } from '@shared/approvals'
import type { ApprovalQueue, RuleService } from '../../console/approvals'
import { withCliContext, type CliContext } from '../../host/cli-context'
import { defineCommand, type CommandIo } from '../command'
import { CliError, UsageError } from '../cli-error'
import { visibleJson } from '@shared/visible-text'
import { decisionLines, listLines, showLines } from './approval-lines'

/** How long `approve`/`deny` wait to see a running console hand the decision to the waiting calls. */
const deliveryWaitMs = 3000

/** The longest reason a denial carries (the agent is told it). */
const maxReasonLength = 2000

/**
 * `airlock approvals list [--all] [--json]`, `approvals show <id> [--json]`, `approvals approve <id>
 * [--scope once|session|rule] [--rule-scope session|agent|global] [--ttl SECONDS]`, `approvals deny
 * <id> --reason TEXT`: the operator's queue from a terminal (SPEC §7, §8.1). Decisions go through
 * the home's database; a running console sees them within a poll and resumes the waiting call. An
 * item nobody waits for any more is recorded as decided and marked expired, and the command says
 * so; a decision that comes after the item expired does not land (exit 1, saying so). Everything
 * printed is the agent's text made visible (`visibleText`, `visibleJson`): no terminal control.
 */
export const approvalsCommand = defineCommand({
  name: 'approvals',
  usage:
    'airlock approvals list [--all] [--json] | approvals show <id> [--json] | approvals approve <id> [--scope once|session|rule] [--rule-scope session|agent|global] [--ttl SECONDS] | approvals deny <id> --reason TEXT  [--home DIR]',
  options: { all: 'flag', scope: 'text', 'rule-scope': 'text', ttl: 'text', reason: 'text' },
  async run({ options, positionals }, io) {
    const [action, id, ...rest] = positionals
    if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`)
    if (action === 'list') {
      if (id !== undefined) throw new UsageError('approvals list takes no argument')
      if (options.scope ?? options['rule-scope'] ?? options.ttl ?? options.reason) throw new UsageError('approvals list takes only --all and --json')
      return withQueue(options.home, ({ queue }) => printList(queue.list({ status: options.all ? 'all' : 'pending' }), options.json === true, io))
    }
    if (action !== 'show' && action !== 'approve' && action !== 'deny')
      throw new UsageError(`approvals takes list, show, approve or deny${action ? `, not ${JSON.stringify(action)}` : ''}`)
    if (id === undefined) throw new UsageError(`approvals ${action} needs the item's id (see airlock approvals list)`)
    if (options.all) throw new UsageError('--all is only for approvals list')
    // An id no item could have is simply not there (exit 1), whatever it holds.
    if (id.length > 128) throw new CliError('not_found', `There is no approval ${JSON.stringify(`${id.slice(0, 40)}…`)}.`)
    if (action === 'show') {
      if (options.scope ?? options['rule-scope'] ?? options.ttl ?? options.reason) throw new UsageError('approvals show takes only --json')
      return withQueue(options.home, ({ queue }) => {
        const item = queue.get(id)
        if (options.json) io.out(visibleJson(item))
        else for (const line of showLines(item)) io.out(line)
        return 0
      })
    }
    const decision = action === 'approve' ? approveInput(id, options) : denyInput(id, options.reason, options)
    return withQueue(options.home, async ({ queue, store }) => {
      const decided = queue.decide(decision, 'cli')
      if (decided.decision?.decision === 'expire') {
        throw new CliError(
          'conflict',
          `Approval ${decided.id} expired at ${decided.expiresAt}, before this decision arrived: it is marked expired and its calls are denied (fail closed); the agent may ask again.`
        )
      }
      const delivered = decided.status === 'expired' ? decided : await delivery(store, decided)
      if (options.json) io.out(visibleJson(delivered))
      else for (const line of decisionLines(delivered, delivered.decision?.ruleId ? store.rules.get(delivered.decision.ruleId) : undefined)) io.out(line)
      return 0
    })
  }
})

function approveInput(id: string, options: { scope?: string; 'rule-scope'?: string; ttl?: string; reason?: string }): ApprovalDecisionInput {
  if (options.reason !== undefined) throw new UsageError('--reason is only for approvals deny')
  const scope = approvalScopeSchema.safeParse(options.scope ?? 'once')
  if (!scope.success) throw new UsageError(`--scope must be once, session or rule, got ${JSON.stringify(options.scope)}`)
  if (scope.data !== 'rule' && (options['rule-scope'] !== undefined || options.ttl !== undefined))
    throw new UsageError('--rule-scope and --ttl go with --scope rule')
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
export async function withQueue<T>(
  home: string | undefined,
  use: (context: { queue: ApprovalQueue; rules: RuleService; store: Store }) => T | Promise<T>
): Promise<T> {
  try {
    return await withCliContext({ home, missing: noDatabase }, (cli) => use({ ...cli.approvals, store: cli.store }))
  } catch (error) {
    throw cliErrorOf(error)
  }
}

/** The queue's and the rules' refusals as the CLI's own: an unknown id or a second decision fails (exit 1), a bad decision is usage (2). */
export function cliErrorOf(error: unknown): unknown {
  if (!(error instanceof AirlockError)) return error
  const { code, message } = error
  if (code === 'approval.not_found' || code === 'rule.not_found') return new CliError('not_found', message)
  if (code === 'approval.already_decided' || code === 'rule.revoked' || code === 'approval.not_rememberable') return new CliError('conflict', message)
  if (code === 'approval.invalid_decision') return new UsageError(message.replace(/^Invalid decision: /, ''))
  return error
}

type Store = CliContext['store']

const noDatabase = ({ database }: { database: string }) => new CliError('not_found', `no Airlock database at ${database} (check --home or AIRLOCK_HOME)`)

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

function printList(items: ApprovalView[], json: boolean, io: CommandIo): number {
  if (json) io.out(visibleJson(items.map((item) => Object.fromEntries(approvalListKeys.map((key) => [key, item[key]])))))
  else for (const line of listLines(items)) io.out(line)
  return 0
}
