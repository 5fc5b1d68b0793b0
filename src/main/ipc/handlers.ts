import { checkpointDetailLimit, type AirlockContract } from '@shared/ipc'
import type { ExecutionResourceManager } from '../core'
import type { AgentService } from '../console/agent-service'
import type { DoctorService } from '../console/doctor'
import type { NetworkService } from '../console/network-service'
import type { ApprovalQueue, RuleService } from '../console/approvals'
import type { HistoryService } from '../console/history-service'
import type { LiveCalls } from '../console/live-calls'
import type { ImageProvisioning } from '../console/image-provisioning'
import type { ProviderCatalog } from '../console/provider-catalog'
import type { RoleService } from '../console/role-service'
import type { SessionService } from '../console/session-service'
import type { SettingsService } from '../console/settings-service'
import type { SkillService } from '../console/skill-service'
import type { WorkspaceBrowser } from '../console/workspace-browser'
import type { WorkspaceCheckpoints } from '../console/checkpoints'
import type { AgentTimeline } from '../console/agent-timeline'
import { connectionSnippets } from '../console/connection-snippets'
import { gatewayUrl } from '../console/gateway-address'
import type { EventRepository, SessionRepository } from '../store'
import type { ContractHandlers } from './call-dispatcher'
import { IpcError } from './ipc-error'
import { changedExtraArgs, confirmHostRun, newlyAllowsUnsafeLocal, newlyUnsafeServers, type HostRunConfirmation } from './host-run-confirmation'

/** What the handlers need from the host. */
export type HandlerServices = {
  settings: SettingsService
  resources: ExecutionResourceManager
  providers: ProviderCatalog
  audit: EventRepository
  agents: AgentService
  roles: RoleService
  sessions: SessionRepository
  history: HistoryService
  /** The calls in flight: live output and the operator's Cancel. */
  live: LiveCalls
  skills: SkillService
  /** The operator's approval queue, the remembered rules, and agent sessions (SPEC §7). */
  approvals: ApprovalQueue
  rules: RuleService
  sessionControl: SessionService
  /** The read-only browser of agents' workspaces (hostile trees: never follows a link). */
  workspaces: WorkspaceBrowser
  /** Every change agents made to their workspaces, as diffs, and the operator's undo. */
  checkpoints: WorkspaceCheckpoints
  /** One agent's sessions, calls and changes in one chronological view. */
  timeline: AgentTimeline
  /** The Docker engine's Airlock images and their provisioning, one at a time. */
  images: ImageProvisioning
  /** Which isolation guarantees hold on this machine, by real escape attempts (SPEC §9). */
  doctor: DoctorService
  /** The egress proxy's domain rules and pinned names (SPEC §6.5). */
  network: NetworkService
  system: { appVersion: string; home: string; databasePath: string; rotateConsoleToken?: () => string | undefined }
  /** The desktop app's native dialog; absent in the web console, where marking an MCP server `unsafe` is refused. */
  confirmHostRun?: HostRunConfirmation
}

/** The contract's handlers: each one line or two that call a service. */
export function createContractHandlers(services: HandlerServices): ContractHandlers<AirlockContract> {
  return {
    system: {
      info: (_input, context) => ({
        appVersion: services.system.appVersion,
        home: services.system.home,
        databasePath: services.system.databasePath,
        transport: context.transport,
        platform: `${process.platform}-${process.arch}`,
        nodeVersion: process.versions.node
      }),
      rotateConsoleToken: (_input, context) => {
        const url = context.transport === 'websocket' ? services.system.rotateConsoleToken?.() : undefined
        if (url === undefined) throw new IpcError('console.no_token', 'Only the web console has a console token; the desktop app needs none.')
        return { url }
      }
    },
    settings: {
      list: () => services.settings.list(),
      get: ({ key }) => services.settings.view(key),
      set: async ({ key, value }, context) => {
        if (key === 'code_execution.providers') {
          const changed = changedExtraArgs(services.settings.get('code_execution.providers'), value)
          const grant =
            changed.length > 0
              ? `Setting extra docker run arguments for ${changed.join(', ')} can give containers the host (--privileged, host mounts, host namespaces)`
              : undefined
          await confirmHostRun(context, [], 'the code-execution providers', services.confirmHostRun, grant)
        }
        return services.settings.set(key, value as never)
      },
      reset: ({ key }) => services.settings.reset(key)
    },
    resources: {
      list: () => services.resources.list().map((handle) => ({ ...handle, ...ownerOf(handle, services) })),
      release: async ({ handleId }) => {
        if (!services.resources.list().some((h) => h.handleId === handleId)) return { released: false }
        await services.resources.forceRelease(handleId)
        return { released: true }
      },
      checkHealth: async ({ handleId }) => {
        const status = await services.resources.checkHealth(handleId)
        if (!status) throw new IpcError('ipc.not_found', `No live handle ${handleId}.`, { handleId })
        return { status }
      },
      recentEvents: ({ limit }) =>
        services.audit
          .recent({ limit: limit ?? 100, prefixes: ['execution_resource.', 'policy.approval.'] })
          .map(({ type, payload, at }) => ({ type, payload, at }))
    },
    providers: {
      list: async () => ({
        providers: await services.providers.describe(),
        codeExecutionOrder: services.settings.get('code_execution.providers').map((c) => (typeof c === 'string' ? c : c.providerId))
      }),
      images: () => services.images.images(),
      provisionImage: ({ language, offline }) => services.images.provision(language, { offline })
    },
    network: {
      listRules: () => services.network.rules(),
      addRule: (input) => services.network.addRule(input),
      removeRule: ({ id }) => services.network.removeRule(id),
      listHosts: () => services.network.hosts(),
      addHost: (input) => services.network.addHost(input),
      removeHost: ({ name }) => services.network.removeHost(name)
    },
    doctor: {
      run: () => services.doctor.run(),
      latest: () => ({ report: services.doctor.latest() })
    },
    agents: {
      list: () => services.agents.list(),
      get: ({ agentId }) => services.agents.detail(agentId),
      create: async ({ agentId, ...input }, context) => {
        await confirmHostRun(context, newlyUnsafeServers([], mcpServersOf(input.profile)), `agent ${agentId}`, services.confirmHostRun)
        await confirmHostRun(context, [], `agent ${agentId}`, services.confirmHostRun, unsafeLocalGrant(`agent ${agentId}`, {}, input.profile))
        return services.agents.create(agentId, input)
      },
      update: async ({ agentId, ...change }, context) => {
        const stored = mcpServersOf(services.agents.get(agentId).profile)
        const proposed = [...mcpServersOf(change.profile), ...mcpServersOf(change.patch)]
        await confirmHostRun(context, newlyUnsafeServers(stored, proposed), `agent ${agentId}`, services.confirmHostRun)
        const before = services.agents.get(agentId).profile
        for (const next of [change.profile, change.patch])
          await confirmHostRun(context, [], `agent ${agentId}`, services.confirmHostRun, unsafeLocalGrant(`agent ${agentId}`, before, next))
        return services.agents.update(agentId, change)
      },
      setEnabled: ({ agentId, enabled }) => services.agents.setEnabled(agentId, enabled),
      remove: ({ agentId }) => services.agents.remove(agentId),
      rotateToken: ({ agentId }) => ({ token: services.agents.rotateToken(agentId) }),
      connection: ({ agentId }) => connectionSnippets(services.agents.get(agentId).id, gatewayUrl(services.system.home, services.settings)),
      sessions: ({ agentId, limit }) => services.sessions.listByAgent(agentId, { limit }),
      listRoles: () => services.roles.list(),
      saveRole: async (input, context) => {
        const id = (input as { id?: unknown }).id
        const storedDefaults = typeof id === 'string' && services.roles.list().some((role) => role.id === id) ? services.roles.get(id).defaults : {}
        const defaults = (input as { defaults?: unknown }).defaults
        await confirmHostRun(context, newlyUnsafeServers(mcpServersOf(storedDefaults), mcpServersOf(defaults)), `role ${String(id)}`, services.confirmHostRun)
        await confirmHostRun(context, [], `role ${String(id)}`, services.confirmHostRun, unsafeLocalGrant(`role ${String(id)}`, storedDefaults, defaults))
        return services.roles.save(input)
      },
      removeRole: ({ roleId }) => (services.roles.remove(roleId), { removed: true as const })
    },
    history: {
      list: (query) => services.history.list(query),
      detail: ({ id }) => services.history.detail(id),
      verify: () => services.history.verify(),
      count: (filters) => services.history.count(filters),
      usage: (query) => services.history.usage(query),
      live: ({ id, after }) => services.live.live(id, after),
      cancel: ({ id }) => services.live.cancel(id)
    },
    skills: {
      list: ({ agentId }) => services.skills.list(agentId),
      approve: ({ agentId, name, revision }) => services.skills.approve(agentId, name, revision),
      reject: ({ agentId, name, revision, reason }) => services.skills.reject(agentId, name, revision, reason)
    },
    approvals: {
      list: (query) => services.approvals.list(query),
      get: ({ id }) => services.approvals.get(id),
      decide: (decision) => services.approvals.decide(decision, 'console'),
      reveal: ({ id }) => services.approvals.reveal(id, 'console')
    },
    rules: {
      list: (query) => services.rules.list(query),
      update: (change) => services.rules.update(change),
      revoke: ({ id }) => services.rules.revoke(id)
    },
    sessions: {
      list: (query) => services.sessionControl.list(query),
      end: ({ id }) => services.sessionControl.end(id)
    },
    checkpoints: {
      list: ({ agentId, limit }) => ({
        checkpoints: services.checkpoints.list(agentId, { limit: limit ?? 100 }),
        storeBytes: services.checkpoints.storeBytes(agentId),
        enabled: services.checkpoints.enabled()
      }),
      detail: ({ id }) => services.checkpoints.describe(id, checkpointDetailLimit) ?? null,
      revert: async ({ id }) => undoView(await services.checkpoints.revert(id)),
      restore: async ({ id }) => undoView(await services.checkpoints.restoreBefore(id))
    },
    timeline: {
      list: ({ agentId, before, limit }) => {
        services.agents.get(agentId)
        return services.timeline.list(agentId, before, limit ?? 100)
      }
    },
    workspace: {
      list: ({ agentId, path }) => services.workspaces.list(agentId, path),
      read: ({ agentId, path }) => services.workspaces.read(agentId, path),
      recent: ({ agentId, limit }) => services.workspaces.recent(agentId, limit)
    }
  }
}

/** The words of an `allowUnsafeLocal` a change newly sets, or undefined when it sets none. */
function unsafeLocalGrant(owner: string, before: unknown, after: unknown): string | undefined {
  return newlyAllowsUnsafeLocal(before, after)
    ? `Setting allowUnsafeLocal for ${owner} lets its commands and code run on this machine without a sandbox (trusted_local)`
    : undefined
}

/** The `mcpServers` of a profile or role defaults given as untrusted JSON (empty when there are none). */
function mcpServersOf(profile: unknown): unknown[] {
  const servers = typeof profile === 'object' && profile !== null ? (profile as { mcpServers?: unknown }).mcpServers : undefined
  return Array.isArray(servers) ? servers : []
}

/**
 * Who a live handle serves, for the Resources view: its agent and session, from its owner (an
 * agent-scoped handle names the agent, a session-scoped one the session) or the call it was made for.
 */
function ownerOf(
  handle: { scope: string; ownerId?: string; actionCallId?: string },
  services: Pick<HandlerServices, 'sessions' | 'history'>
): { agentId?: string; sessionId?: string } {
  if (handle.scope === 'agent' && handle.ownerId) return { agentId: handle.ownerId }
  const sessionId = handle.scope === 'session' ? handle.ownerId : undefined
  const agentId =
    (sessionId ? services.sessions.get(sessionId)?.agentId : undefined) ?? (handle.actionCallId ? services.history.agentOf(handle.actionCallId) : undefined)
  return { ...(agentId ? { agentId } : {}), ...(sessionId ? { sessionId } : {}) }
}

/** What an undo tells the console: how many entries it brought back, and the checkpoint that records it. */
function undoView(outcome: { files: number; checkpoint?: { id: string } }): { files: number; checkpointId: string | null } {
  return { files: outcome.files, checkpointId: outcome.checkpoint?.id ?? null }
}
