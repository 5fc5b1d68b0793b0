import type { RuleView } from '@shared/approvals'
import { defineCommand, type CommandIo } from '../command'
import { CliError, UsageError } from '../cli-error'
import { visibleJson, visibleText } from '@shared/visible-text'
import { withQueue } from './approvals'

/**
 * `airlock rules list [--all] [--json]`, `airlock rules rm <id>`: the remembered grants (SPEC §7)
 * from a terminal. `list` shows the active rules (`--all`: revoked and expired ones too); `rm`
 * revokes one for good (a running console stops matching it at the next request). A rule's
 * description quotes the agent's words: every line is printed through `visibleText`/`visibleJson`.
 */
export const rulesCommand = defineCommand({
  name: 'rules',
  usage: 'airlock rules list [--all] [--json] | rules rm <id>  [--home DIR]',
  options: { all: 'flag' },
  async run({ options, positionals }, io) {
    const [action, id, ...rest] = positionals
    if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`)
    if (action === 'list') {
      if (id !== undefined) throw new UsageError('rules list takes no argument')
      return withQueue(options.home, ({ rules }) => printList(rules.list({ all: options.all === true }), options.json === true, io))
    }
    if (action !== 'rm') throw new UsageError(`rules takes list or rm${action ? `, not ${JSON.stringify(action)}` : ''}`)
    if (id === undefined) throw new UsageError('rules rm needs the rule id (see airlock rules list)')
    if (options.all) throw new UsageError('--all is only for rules list')
    if (id.length > 128) throw new CliError('not_found', `There is no rule ${JSON.stringify(`${id.slice(0, 40)}…`)}.`)
    return withQueue(options.home, ({ rules }) => {
      const revoked = rules.revoke(id)
      io.out(options.json ? visibleJson(revoked) : visibleText(`Revoked rule ${revoked.id}: ${revoked.description}`))
      return 0
    })
  }
})

function printList(rules: RuleView[], json: boolean, io: CommandIo): number {
  if (json) {
    io.out(visibleJson(rules))
    return 0
  }
  if (rules.length === 0) {
    io.out('No rules: approve a request with --scope session or --scope rule to remember it.')
    return 0
  }
  for (const rule of rules) {
    const who = rule.scope === 'global' ? 'global' : rule.scope === 'agent' ? `agent ${rule.agentId}` : `session ${rule.sessionId} of ${rule.agentId}`
    const facts = [
      `${rule.matchCount} matches`,
      rule.riskFlags.length > 0 ? `flags: ${rule.riskFlags.join(',')}` : '',
      rule.revokedAt ? `revoked ${rule.revokedAt}` : rule.expiresAt ? `until ${rule.expiresAt}` : 'no expiry'
    ].filter(Boolean)
    io.out(visibleText(`${rule.id}  ${who}  ${rule.description}  (${facts.join('; ')})`))
  }
  return 0
}
