import { AirlockError } from '@shared/errors'
import type { SessionChangedEvent } from '@shared/approvals'
import type { AirlockContract } from '@shared/ipc'
import { registerBuiltinActions, secretsOf } from '../actions'
import { quotaRefusal, rememberUsage, watchQuota } from '../files/workspace'
import { ActionHistoryRecorder } from '../console/action-history-recorder'
import { AgentService, defaultsFromSettings } from '../console/agent-service'
import { AgentSessions, type SessionLedger } from '../console/agent-sessions'
import { AgentWorkspaces } from '../console/agent-workspaces'
import { HistoryService } from '../console/history-service'
import { LiveCalls } from '../console/live-calls'
import { RoleService } from '../console/role-service'
import { SkillService } from '../console/skill-service'
import { WorkspaceUsageIndex } from '../console/workspace-usage'
import {
  ActionDispatcher,
  ActionRegistry,
  installOutputRedaction,
  loadCommandAnalyzer,
  PolicyEngine,
  type ActionResult,
  type ExecutionResourceManager,
  type PostToolResponseEvent,
  type RunningHook
} from '../core'
import type { SettingsService } from '../console/settings-service'
import type { ContractEventHub } from '../ipc'
import type { Store } from '../store'
import type { WorkspaceCheckpoints } from '../console/checkpoints'
import { createCheckpoints, installCheckpoints } from './checkpoint-wiring'

/** The agent side of the host: agents and roles, the action runtime, sessions and history. */
export type AgentRuntime = {
  /** The agents themselves: records, tokens, profiles, enabled or not. */
  service: AgentService
  roles: RoleService
  history: HistoryService
  /** The calls in flight as the console watches them: live output and the operator's Cancel. */
  live: LiveCalls
  /** Skills and their revisions; the operator approves or rejects here (SPEC §6.4). */
  skills: SkillService
  registry: ActionRegistry
  dispatcher: ActionDispatcher
  /** The API the MCP gateway calls: open a session, execute tool calls, end it. */
  sessions: AgentSessions
  /** The built-in policy (SPEC §6.3), installed as the dispatcher's hooks. */
  policy: PolicyEngine
  /** Every change agents make to their workspaces, to see as diffs and undo (issue 28). */
  checkpoints: WorkspaceCheckpoints
  dispose(): Promise<void>
}

/**
 * Builds the agent runtime over the store and the manager. Before it returns, what a crash left
 * is settled: calls still `running` become `interrupted` (chained into history) and open sessions
 * end `interrupted`, so nothing can run before history is consistent.
 */
export function createAgentRuntime(input: {
  store: Store
  resources: ExecutionResourceManager
  workspaces: string
  /** Where workspace checkpoints keep their content (`<home>/checkpoints`). */
  checkpoints: string
  events: ContractEventHub<AirlockContract>
  logError: (message: string, error: unknown) => void
  /** Settings the policy reads at every call (`policy.labels`, `policy.secret_env_vars`). */
  settings?: Pick<SettingsService, 'get'>
  /** Hears every session that starts or ends (consoles refresh; the session's rules end with it). */
  onSessionChange?: (event: SessionChangedEvent) => void
}): AgentRuntime {
  const { store, events } = input
  const workspaces = new AgentWorkspaces(input.workspaces)
  const registry = new ActionRegistry()
  const skills = new SkillService({
    repository: store.skills,
    queue: store,
    onChange: (change) => {
      store.events.append('skill.changed', change)
      events.publish('skills', 'changed', change)
    }
  })
  const unregister = registerBuiltinActions(registry, {
    skills,
    directories: { cwd: (id) => store.sessions.cwd(id), setCwd: (id, cwd) => store.sessions.setCwd(id, cwd) }
  })
  // The agent service tells sessions about disabled agents; sessions need the service: built after it.
  const late: { sessions?: AgentSessions; checkpoints?: WorkspaceCheckpoints } = {}
  // Each workspace's disk use, kept from what changed (the after-run quota check reads it).
  const usage = new WorkspaceUsageIndex()
  const agents = new AgentService({
    agents: store.agents,
    roles: store.roles,
    workspaces,
    ...(input.settings ? { defaults: defaultsFromSettings(input.settings) } : {}),
    onChange: ({ agentId, change }) => {
      store.events.append('agent.changed', { agentId, change })
      events.publish('agents', 'changed', { agentId, change })
      // Disabling or removing an agent stops its calls in flight and ends its sessions at once.
      if (change === 'removed') {
        skills.forgetAgent(agentId)
        late.checkpoints?.forgetAgent(agentId)
        usage.forget(workspaces.pathOf(agentId))
      }
      if (change === 'disabled' || change === 'removed') void late.sessions?.endAgent(agentId, change === 'disabled' ? 'agent_disabled' : 'agent_removed')
    }
  })
  const roles = new RoleService({
    roles: store.roles,
    agents: store.agents,
    onChange: ({ roleId, change, agentIds }) => {
      store.events.append('role.changed', { roleId, change })
      events.publish('agents', 'changed', { roleId, change, agentIds })
    }
  })
  const recorder = new ActionHistoryRecorder({
    repository: store.history,
    workspaceOf: (agentId) => (agents.state(agentId) === 'removed' ? undefined : workspaces.pathOf(agentId)),
    onChange: (change) => events.publish('history', 'changed', change),
    onDiagnostic: (message) => input.logError(`Airlock: ${message}`, undefined)
  })
  const checkpoints = createCheckpoints({
    store,
    directory: input.checkpoints,
    settings: input.settings,
    workspaceOf: (agentId) => (agents.state(agentId) === 'removed' ? undefined : workspaces.pathOf(agentId)),
    recorder,
    watch: true,
    onRecorded: (agentId) => events.publish('checkpoints', 'changed', { agentId }),
    secretsOf: (agentId) => {
      let own: string[] = []
      try {
        own = secretsOf(agents.effectiveProfile(agentId))
      } catch {
        // A removed agent has no profile left: only the operator's secret variables apply.
      }
      return [...own, ...secretEnv()]
    }
  })
  late.checkpoints = checkpoints
  recorder.recoverInterrupted()
  store.sessions.endInterrupted()
  const dispatcher = new ActionDispatcher({
    manager: input.resources,
    registry,
    history: recorder,
    agentGate: (agentId) => agents.state(agentId),
    autoAllow: () => input.settings?.get('access_control_policy.auto_allow') === true
  })
  // The built-in policy runs first; the quota check, then output redaction last (so whatever a
  // response hook put in the result is redacted too).
  const policy = new PolicyEngine({
    analyzer: loadCommandAnalyzer,
    taint: store.sessions,
    globalLabels: () => input.settings?.get('policy.labels') ?? {},
    isRunning: (callId) => dispatcher.running().includes(callId),
    recoverable: (agentId, segments, options) => checkpoints.recoverable(agentId, segments, options)
  })
  const unhooks = [
    policy.install(dispatcher.hooks),
    installCheckpoints(dispatcher.hooks, checkpoints),
    dispatcher.hooks.onPostToolResponse((event) => quotaAfterCommands(event, usage)),
    dispatcher.hooks.onRunning(quotaWhileRunning),
    installOutputRedaction(dispatcher.hooks)
  ]
  const secretEnv = () => (input.settings?.get('policy.secret_env_vars') ?? []).map((name) => process.env[name] ?? '').filter((value) => value !== '')
  const ledger: SessionLedger = {
    start: (agentId, transport) => {
      const sessionId = store.sessions.start(agentId, transport)
      input.onSessionChange?.({ sessionId, agentId, change: 'started' })
      return sessionId
    },
    touch: (sessionId) => store.sessions.touch(sessionId),
    reopen: (sessionId) => {
      if (!store.sessions.reopen(sessionId)) return false
      const agentId = store.sessions.get(sessionId)?.agentId
      if (agentId) input.onSessionChange?.({ sessionId, agentId, change: 'started' })
      return true
    },
    end: (sessionId, reason) => {
      store.sessions.end(sessionId, reason)
      const agentId = store.sessions.get(sessionId)?.agentId
      if (agentId) input.onSessionChange?.({ sessionId, agentId, change: 'ended' })
    }
  }
  const sessions = new AgentSessions({ dispatcher, agents, ledger, secretsOf: (profile) => [...secretsOf(profile), ...secretEnv()] })
  late.sessions = sessions
  const live = new LiveCalls(dispatcher, (lines) => events.publish('history', 'output', lines))
  return {
    service: agents,
    roles,
    history: new HistoryService(store.history),
    live,
    skills,
    registry,
    dispatcher,
    sessions,
    policy,
    checkpoints,
    async dispose() {
      live.dispose()
      await sessions.endAll('shutdown')
      for (const unhook of unhooks) unhook()
      checkpoints.dispose()
      usage.dispose()
      unregister()
    }
  }
}

/** The tools that run programs in the agent's workspace (an upstream MCP server writes only its own state folder, out of it). */
function runsInWorkspace(tool: string): boolean {
  return tool === 'run_command' || tool === 'run_code' || tool === 'run_skill'
}

/**
 * While a command or code run goes, the workspace's disk quota holds (`watchQuota`: a run that
 * writes past it is stopped, its output kept). SPEC §6.2.
 */
function quotaWhileRunning({ tool, agent, stop }: Parameters<RunningHook>[0]): (() => void) | undefined {
  return runsInWorkspace(tool) ? watchQuota(agent.workspace, agent.profile.limits.diskMb, stop) : undefined
}

/**
 * After a command or code run, the workspace must still be within its disk quota (SPEC §6.2):
 * a run that left it over ends `error` (its output kept), and writes are refused until space is
 * freed. The use is read from the workspace's usage index (what changed, not a walk of everything).
 */
async function quotaAfterCommands({ tool, agent, result }: PostToolResponseEvent, usage: WorkspaceUsageIndex): Promise<ActionResult | undefined> {
  if (!runsInWorkspace(tool) || result.status !== 'success') return undefined
  try {
    const measured = await usage.measure(agent.workspace)
    rememberUsage(agent.workspace, measured)
    const refusal = quotaRefusal(measured, agent.profile.limits.diskMb, 0)
    if (refusal) throw refusal
    return undefined
  } catch (error) {
    return {
      ...result,
      ok: false,
      status: 'error',
      error: { code: error instanceof AirlockError ? error.code : 'workspace_file.quota', message: (error as Error).message }
    }
  }
}
