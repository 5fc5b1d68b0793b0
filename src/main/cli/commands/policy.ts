import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { agentIdSchema } from '@shared/agents'
import { AgentService, defaultsFromSettings } from '../../console/agent-service'
import { AgentWorkspaces } from '../../console/agent-workspaces'
import { ContentStore, WorkspaceCheckpoints } from '../../console/checkpoints'
import { checkpointSettings } from '../../host/checkpoint-wiring'
import { SettingsService } from '../../console/settings-service'
import { loadCommandAnalyzer, PolicyEngine, type CommandDecision } from '../../core'
import { airlockPaths, resolveHome } from '../../host'
import { openStore, type Store } from '../../store'
import { actionAgent } from '../../capabilities/agent-toolset'
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
    if (line.trim() === '') throw new UsageError('policy check needs a command line after --, not an empty one')
    const paths = airlockPaths(resolveHome(options.home))
    if (!existsSync(paths.database)) throw new CliError('not_found', `There is no agent ${agentId.data} (no Airlock database at ${paths.home}).`)
    const store = openStore(paths.database)
    let decision: CommandDecision
    try {
      decision = await decide(store, paths.workspaces, agentId.data, line)
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
    io.out(`what happens: ${consequence[decision.decision]}`)
    io.out('commands:')
    for (const argv of decision.commands) io.out(`  ${argv.map(shellQuote).join(' ')}`)
    if (decision.commands.length === 0) io.out('  (none found)')
    return 0
  }
})

const consequence: Record<CommandDecision['decision'], string> = {
  run: 'the command runs in the agent\'s sandbox.',
  ask: 'the call waits for the operator\'s approval (until the approval queue ships with the gateway, it ends approval_required). To stop asking: change the profile\'s ask, allowlist or labels.',
  blocked: 'the call is refused and the agent is told the rule; nothing runs.'
}

/**
 * The decision a `run_command` of `line` would get, checked in the dispatcher's order: the agent
 * is enabled, its capabilities give it `run_command`, then the policy engine; an `ask` that the
 * setting `access_control_policy.auto_allow` would approve is reported as `run`, saying so.
 */
async function decide(store: Store, workspaces: string, agentId: string, line: string): Promise<CommandDecision> {
  const agentWorkspaces = new AgentWorkspaces(workspaces)
  const settings = new SettingsService(store.settings)
  const agents = new AgentService({ agents: store.agents, roles: store.roles, workspaces: agentWorkspaces, defaults: defaultsFromSettings(settings) })
  const profile = agents.effectiveProfile(agentId)
  const blocked = (rule: string, reason: string): CommandDecision => ({ decision: 'blocked', rule, reason, riskFlags: [], commands: [] })
  if (agents.state(agentId) === 'disabled') return blocked('policy.agent_disabled', `agent ${agentId} is disabled: every call is refused until it is enabled`)
  const agent = actionAgent({ agentId, sessionId: '', workspace: agentWorkspaces.pathOf(agentId), profile })
  if (!agent.tools.has('run_command')) return blocked('capability.not_enabled', `agent ${agentId} has no shell: its capabilities do not include run_command`)
  // What the workspace's checkpoints keep decides, as in a real call, whether a deletion asks (`recoverable_deletion`).
  const checkpoints = new WorkspaceCheckpoints({ repository: store.checkpoints, store: new ContentStore(join(dirname(workspaces), 'checkpoints')), settings: checkpointSettings(settings), workspaceOf: () => undefined })
  const engine = new PolicyEngine({ analyzer: loadCommandAnalyzer, taint: store.sessions, globalLabels: () => settings.get('policy.labels'), recoverable: (id, segments, options) => checkpoints.recoverable(id, segments, options) })
  const decision = await engine.checkCommand(line, agent)
  if (decision.decision !== 'ask' || settings.get('access_control_policy.auto_allow') !== true) return decision
  return { ...decision, decision: 'run', reason: `${decision.reason}; approved automatically because access_control_policy.auto_allow is on` }
}

/** A word as the shell would need it written to mean exactly itself. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}
