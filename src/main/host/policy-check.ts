import { registerBuiltinActions } from '../actions'
import { actionAgent } from '../capabilities/agent-toolset'
import { ContentStore, WorkspaceCheckpoints } from '../console/checkpoints'
import {
  ActionDispatcher,
  ActionRegistry,
  ExecutionResourceManager,
  loadCommandAnalyzer,
  PolicyEngine,
  type CommandDecision,
  type PreToolCallDecision
} from '../core'
import { checkpointSettings } from './checkpoint-wiring'
import type { AgentService } from '../console/agent-service'
import type { AgentWorkspaces } from '../console/agent-workspaces'
import type { SettingsService } from '../console/settings-service'
import type { Store } from '../store'

/**
 * What a `run_command` of `line` by `agentId` would meet, in a fresh session (taint `PUBLIC`):
 * `airlock policy check`. It goes through the dispatcher's own `check` — the agent's gate, its
 * capabilities, the input, then the policy engine installed as in the host — so there is one
 * checking order. No provider is registered: nothing can run, and nothing is recorded or asked.
 */
export async function checkRunCommand(
  cli: { store: Store; settings: SettingsService; agents: AgentService; workspaces: AgentWorkspaces; paths: { checkpoints: string } },
  agentId: string,
  line: string
): Promise<CommandDecision> {
  const { store, settings, agents } = cli
  const profile = agents.effectiveProfile(agentId)
  const registry = new ActionRegistry()
  registerBuiltinActions(registry)
  const dispatcher = new ActionDispatcher({
    manager: new ExecutionResourceManager(),
    registry,
    agentGate: (id) => agents.state(id),
    autoAllow: () => settings.get('access_control_policy.auto_allow') === true
  })
  // What the workspace's checkpoints keep decides, as in a real call, whether a deletion asks (`recoverable_deletion`).
  const checkpoints = new WorkspaceCheckpoints({
    repository: store.checkpoints,
    store: new ContentStore(cli.paths.checkpoints),
    settings: checkpointSettings(settings),
    workspaceOf: () => undefined
  })
  const policy = new PolicyEngine({
    analyzer: loadCommandAnalyzer,
    taint: store.sessions,
    globalLabels: () => settings.get('policy.labels'),
    recoverable: (id, segments, options) => checkpoints.recoverable(id, segments, options)
  })
  policy.install(dispatcher.hooks)
  const agent = actionAgent({ agentId, sessionId: '', workspace: cli.workspaces.pathOf(agentId), profile })
  const checked = await dispatcher.check({ tool: 'run_command', input: { command: line }, agent })
  if ('refused' in checked) {
    const { meta, error } = checked.refused
    const decided = meta?.policy as PreToolCallDecision | undefined
    if (decided) return shown(decided)
    return { decision: 'blocked', rule: error?.code ?? null, reason: error?.message ?? 'refused', riskFlags: [], commands: [] }
  }
  const decision = shown(checked.decision)
  if (!checked.autoAllowed) return decision
  return { ...decision, decision: 'run', reason: `${decision.reason}; approved automatically because access_control_policy.auto_allow is on` }
}

/** A policy decision as `policy check` prints it. */
function shown(decision: PreToolCallDecision): CommandDecision {
  return {
    decision: decision.decision === 'allow' ? 'run' : decision.decision === 'ask' ? 'ask' : 'blocked',
    rule: decision.rule ?? null,
    reason: decision.reason ?? 'nothing in the policy stops or flags this command line',
    riskFlags: decision.riskFlags ?? [],
    commands: decision.commands ?? []
  }
}
