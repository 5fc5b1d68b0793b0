import { agentIdSchema } from '@shared/agents'
import type { CommandDecision } from '../../core'
import { withCliContext } from '../../host/cli-context'
import { defineCommand } from '../command'
import { CliError, UsageError } from '../cli-error'

/**
 * `airlock policy check --agent A [--json] -- <command line>` (SPEC §8.1): what the policy decides
 * for `run_command` of that line by that agent, in a fresh session, through the same engine a call
 * goes through. Exit 0 whatever it decides; the operator reads why.
 *
 * The command line: one word after `--` is taken verbatim (`-- 'rm -rf / && ls'`); several words
 * are the argv your shell already split, quoted back into one line (`-- rm -rf /`).
 */
export const policyCommand = defineCommand({
  name: 'policy',
  usage: 'airlock policy check --agent A [--json] [--home DIR] -- <command line>   (one quoted word is taken verbatim)',
  options: { agent: 'text' },
  async run({ options, positionals }, io) {
    const [action, ...words] = positionals
    if (action !== 'check') throw new UsageError(`policy takes check${action ? `, not ${JSON.stringify(action)}` : ''}`)
    if (!options.agent) throw new UsageError('policy check needs --agent A')
    const agentId = agentIdSchema.safeParse(options.agent)
    if (!agentId.success) throw new UsageError(`--agent ${JSON.stringify(options.agent)}: ${agentId.error.issues.map((i) => i.message).join('; ')}`)
    if (words.length === 0) throw new UsageError('policy check needs a command line after --')
    const line = words.length === 1 ? words[0]! : words.map(shellQuote).join(' ')
    if (line.trim() === '') throw new UsageError('policy check needs a command line after --, not an empty one')
    const missing = ({ home }: { home: string }) => new CliError('not_found', `There is no agent ${agentId.data} (no Airlock database at ${home}).`)
    const decision = await withCliContext({ home: options.home, missing }, (cli) => cli.checkRunCommand(agentId.data, line))
    if (options.json) {
      io.out(JSON.stringify({ decision: decision.decision, rule: decision.rule, riskFlags: decision.riskFlags, commands: decision.commands }))
      return 0
    }
    io.out(`decision: ${decision.decision}`)
    io.out(`rule: ${decision.rule ?? '-'}`)
    io.out(`reason: ${decision.reason}`)
    io.out(`risk flags: ${decision.riskFlags.length ? decision.riskFlags.join(', ') : '-'}`)
    io.out(`what happens: ${consequence[decision.decision]}`)
    io.out('commands:')
    for (const argv of decision.commands) io.out(`  ${argv.map(shellQuote).join(' ')}`)
    if (decision.commands.length === 0) io.out('  (none found)')
    return 0
  }
})

const consequence: Record<CommandDecision['decision'], string> = {
  run: "the command runs in the agent's sandbox.",
  ask: "the call waits for the operator's approval (until the approval queue ships with the gateway, it ends approval_required). To stop asking: change the profile's ask, allowlist or labels.",
  blocked: 'the call is refused and the agent is told the rule; nothing runs.'
}

/** A word as the shell would need it written to mean exactly itself. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}
