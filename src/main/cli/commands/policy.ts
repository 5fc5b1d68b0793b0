import { existsSync } from 'node:fs'
import { agentIdSchema } from '@shared/agents'
import { AgentService } from '../../console/agent-service'
import { AgentWorkspaces } from '../../console/agent-workspaces'
import { SettingsService } from '../../console/settings-service'
import { loadCommandAnalyzer, PolicyEngine, type CommandDecision } from '../../core'
import { airlockPaths, resolveHome } from '../../host'
import { openStore } from '../../store'
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
  summary: 'Explain what the policy decides for a command line by an agent',
  usage: "airlock policy check --agent A [--json] [--home DIR] -- <command line>   (one quoted word is taken verbatim)",
  options: { agent: 'text' },
  async run({ options, positionals }, io) {
    const [action, ...words] = positionals
    if (action !== 'check') throw new UsageError(`policy takes check${action ? `, not ${JSON.stringify(action)}` : ''}`)
    if (!options.agent) throw new UsageError('policy check needs --agent A')
    const agentId = agentIdSchema.safeParse(options.agent)
    if (!agentId.success) throw new UsageError(`--agent ${JSON.stringify(options.agent)}: ${agentId.error.issues.map((i) => i.message).join('; ')}`)
    if (words.length === 0) throw new UsageError('policy check needs a command line after --')
    const line = words.length === 1 ? words[0]! : words.map(shellQuote).join(' ')
    const paths = airlockPaths(resolveHome(options.home))
    if (!existsSync(paths.database)) throw new CliError('not_found', `There is no agent ${agentId.data} (no Airlock database at ${paths.home}).`)
    const store = openStore(paths.database)
    let decision: CommandDecision
    try {
      const agents = new AgentService({ agents: store.agents, roles: store.roles, workspaces: new AgentWorkspaces(paths.workspaces) })
      const profile = agents.effectiveProfile(agentId.data)
      const settings = new SettingsService(store.settings)
      const engine = new PolicyEngine({ analyzer: loadCommandAnalyzer, taint: store.sessions, globalLabels: () => settings.get('policy.labels') })
      decision = await engine.checkCommand(line, { agentId: agentId.data, workspace: new AgentWorkspaces(paths.workspaces).pathOf(agentId.data), profile })
    } finally {
      store.close()
    }
    if (options.json) {
      io.out(JSON.stringify({ decision: decision.decision, rule: decision.rule, riskFlags: decision.riskFlags, commands: decision.commands }))
      return 0
    }
    io.out(`decision: ${decision.decision}`)
    io.out(`rule: ${decision.rule ?? '-'}`)
    io.out(`reason: ${decision.reason}`)
    io.out(`risk flags: ${decision.riskFlags.length ? decision.riskFlags.join(', ') : '-'}`)
    io.out('commands:')
    for (const argv of decision.commands) io.out(`  ${argv.map(shellQuote).join(' ')}`)
    if (decision.commands.length === 0) io.out('  (none found)')
    return 0
  }
})

/** A word as the shell would need it written to mean exactly itself. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}
