import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import { airlockContract, type AirlockContract } from '@shared/ipc'
import { version as appVersion } from '../../../package.json'
import { DoctorService } from '../console/doctor'
import { ApprovalQueue, RuleService } from '../console/approvals'
import { ImageProvisioning, type ImageProgress, type ImageProvisioningOptions } from '../console/image-provisioning'
import { NetworkService } from '../console/network-service'
import { ProviderCatalog } from '../console/provider-catalog'
import { SessionService } from '../console/session-service'
import { SettingsService } from '../console/settings-service'
import { WorkspaceBrowser } from '../console/workspace-browser'
import { AgentTimeline } from '../console/agent-timeline'
import { ExecutionResourceManager, loadCommandAnalyzer, PolicyApproval, sandboxIdentity, sandboxReachProblem, type HandleStore } from '../core'
import { ContractEventHub, createCallDispatcher, createContractHandlers, type CallDispatcher, type HostRunConfirmation } from '../ipc'
import { createBuiltinProviders, createDockerClient } from '../providers'
import { dockerImageEngine } from './image-engine'
import { recoverLeftoverHandles, type RecoveryOutcome } from './recover-handles'
import { createAgentRuntime, type AgentRuntime } from './agent-runtime'
import { createEgressProxy, egressPlace } from './egress-wiring'
import { openStore, type Store } from '../store'
import { watchForeignWrites } from './foreign-writes'
import { airlockPaths, createDataDirectories, createHomeDirectory, resolveHome, type AirlockPaths } from './paths'

/** What a shell tells the host; everything else derives from the home directory. */
export type HostConfig = {
  /** The data directory; default `AIRLOCK_HOME`, else `~/.airlock`. */
  home?: string
  /** Path of a better-sqlite3 build for the running ABI (Electron); default: the Node build. */
  sqliteBinding?: string
  /** Where unexpected errors are reported (default: stderr). */
  logError?: (message: string, error: unknown) => void
  /** Fixed inputs of image provisioning from the console (mirror, suite, rootfs tarball, tag); default: this machine's apt mirror, tag `latest`. */
  imageProvisioning?: ImageProvisioningOptions['provision']
  /**
   * The desktop app's native dialog, asked before a console change marks an MCP server `unsafe`
   * (runs it on the host). Without it (the web console) such a change is refused: the CLI does it.
   */
  confirmHostRun?: HostRunConfirmation
}

/** The application object graph, built once per process by `createHost`. */
export type Host = {
  readonly appVersion: string
  readonly paths: AirlockPaths
  /**
   * Why sandboxed code cannot reach this home's workspaces (a home under /root when Airlock runs
   * as root), with the fix; undefined when it can. Shells print it at start; the bubblewrap probe
   * (Providers view, doctor) says it too.
   */
  readonly homeProblem: string | undefined
  /** The web console's shell gives the host the function that rotates its token (`system.rotateConsoleToken`). */
  serveConsoleTokenRotation(rotate: (() => string) | undefined): void
  readonly store: Store
  readonly settings: SettingsService
  /** The execution-resource manager every action goes through. */
  readonly resources: ExecutionResourceManager
  /** Agents, roles, the action runtime, sessions (what the gateway calls) and history. */
  readonly agents: AgentRuntime
  /**
   * The operator's approval queue (SPEC §7): the `console` approval handler, the default. The
   * gateway follows a waiting call with `approvals.watchCall(callId, listener)`.
   */
  readonly approvals: ApprovalQueue
  /** Remembered grants: consulted before a request is queued; listed, edited, revoked by the operator. */
  readonly rules: RuleService
  /** Contract events for every console (transports subscribe). */
  readonly events: ContractEventHub<AirlockContract>
  /** The one entry point of contract calls for every transport. */
  readonly dispatch: CallDispatcher
  /** Start-up recovery of what a crashed run left; shells await it before they serve. */
  readonly recovered: Promise<RecoveryOutcome>
  /** Stops everything the host started, in reverse order. Safe to call twice. */
  dispose(): Promise<void>
}

/**
 * The composition root: opens the home and its database, builds the services and the contract
 * dispatcher. Nothing is created under the home before the database proved usable.
 */
export function createHost(config: HostConfig = {}): Host {
  const logError = config.logError ?? ((message, error) => console.error(message, error))
  const paths = airlockPaths(resolveHome(config.home))
  createHomeDirectory(paths.home)
  const store = openStore(paths.database, { nativeBinding: config.sqliteBinding })
  const disposers: (() => void | Promise<void>)[] = [() => store.close()]
  try {
    createDataDirectories(paths)
    // The audit ledger's head is anchored outside it (<home>/audit-anchor.json) as the console starts
    // and stops; a ledger that lost an anchored head keeps its anchor, for `audit verify` to report.
    const anchorHead = () => {
      try {
        const outcome = store.audit.anchorHead()
        if ('problem' in outcome)
          logError('Airlock: the audit record no longer holds its anchored head; run `airlock audit verify`', new Error(outcome.problem))
      } catch (error) {
        logError('Airlock: the audit head could not be anchored', error)
      }
    }
    anchorHead()
    disposers.push(anchorHead)
    const settings = new SettingsService(store.settings)
    const events = new ContractEventHub(airlockContract)
    // Set by the web console's shell once it serves (`airlock serve`); the desktop app has no token.
    const consoleTokenRotation: { rotate?: () => string } = {}
    // Another process's writes (the CLI, a second console) reach open views as their own would.
    disposers.push(watchForeignWrites(store.db, (dataVersion) => events.publish('system', 'changedElsewhere', { dataVersion })))
    disposers.push(
      settings.subscribe((view) => {
        // The audit row names the key only: provider config values may hold secrets.
        store.events.append('settings.changed', { key: view.key, isDefault: view.isDefault })
        events.publish('settings', 'changed', view)
      })
    )
    // Every handle change goes through the store port: mirror it, then tell consoles to refresh.
    const handleStore: HandleStore = {
      save: (handle) => {
        store.handles.save(handle)
        events.publish('resources', 'changed', { handleId: handle.handleId })
      },
      remove: (handleId) => {
        store.handles.remove(handleId)
        events.publish('resources', 'changed', { handleId })
      }
    }
    // Every approval goes to the operator's queue (never a prompt on the host's own terminal): the
    // call waits for a decision from any console or the CLI, or its item expires (fail closed).
    const rules = new RuleService({ store, analyzer: loadCommandAnalyzer, onChange: (event) => events.publish('rules', 'changed', event) })
    const approvals = new ApprovalQueue({
      store,
      rules,
      onChange: (event) => events.publish('approvals', 'changed', event),
      onRulesChange: (event) => events.publish('rules', 'changed', event),
      logError
    })
    const approval = new PolicyApproval().registerHandler('console', approvals.handler).setDefaultHandler('console')
    const resources = new ExecutionResourceManager({ approval, settings, handleStore })
    const onImageProgress = (progress: ImageProgress) => events.publish('providers', 'imageProgress', progress)
    // The proxy learns an agent's ask mode from the runtime built below (connections come later).
    const late: { runtime?: AgentRuntime } = {}
    const egress = createEgressProxy({
      store,
      ...egressPlace(paths.home),
      approval,
      identity: sandboxIdentity(),
      globalLabels: () => settings.get('policy.labels') ?? {},
      profileOf: (agentId) => {
        try {
          return late.runtime?.service.effectiveProfile(agentId)
        } catch {
          return undefined
        }
      }
    })
    // Endpoint folders of a crashed run answer nobody: gone before any sandbox opens one.
    egress.sweep()
    for (const provider of createBuiltinProviders({ home: paths.home, onImageProgress, egress })) resources.registerProvider(provider)
    const recovered = recoverLeftoverHandles(store, resources).catch((error: unknown): RecoveryOutcome => {
      logError('Airlock: start-up recovery failed', error)
      return { handles: 0, providers: [] }
    })
    disposers.push(
      resources.events.on('*', (event) => {
        store.events.append(event.type, event.payload, event.at)
        events.publish('resources', 'event', event)
      }),
      () => resources.releaseAll().catch((error: unknown) => logError('Airlock: some resources could not be released at shutdown', error))
    )
    const agents = createAgentRuntime({
      store,
      resources,
      workspaces: paths.workspaces,
      checkpoints: paths.checkpoints,
      events,
      logError,
      settings,
      onSessionChange: (event) => {
        events.publish('sessions', 'changed', event)
        // A session's rules end with it.
        if (event.change === 'ended') rules.expireSession(event.sessionId)
      }
    })
    late.runtime = agents
    // Sessions end (their warm resources released) before the manager releases what is left.
    disposers.push(() => agents.dispose())
    // First of all at shutdown: calls waiting for approval are let go (their items stay queued).
    disposers.push(approvals.start())
    // The operator browses a workspace of a known agent only (`agent.not_found` otherwise); nothing is made again here.
    const workspaces = new WorkspaceBrowser({
      workspaceOf: (agentId) => {
        agents.service.get(agentId)
        return join(realpathSync(paths.workspaces), agentId)
      },
      checkpointed: (agentId, limit) => agents.checkpoints.recentChanges(agentId, limit)
    })
    const doctor = new DoctorService({
      manager: resources,
      stageDir: join(paths.home, 'doctor'),
      reports: store.doctor,
      onChange: (change) => events.publish('doctor', 'changed', change)
    })
    const images = new ImageProvisioning({
      engine: dockerImageEngine(createDockerClient()),
      workDir: paths.images,
      onProgress: onImageProgress,
      provision: config.imageProvisioning,
      logError
    })
    const dispatch = createCallDispatcher(
      airlockContract,
      createContractHandlers({
        settings,
        resources,
        providers: new ProviderCatalog(resources, paths.workspaces),
        audit: store.events,
        agents: agents.service,
        roles: agents.roles,
        sessions: store.sessions,
        history: agents.history,
        live: agents.live,
        skills: agents.skills,
        approvals,
        rules,
        sessionControl: new SessionService({ ledger: store.sessions, sessions: agents.sessions, resources }),
        workspaces,
        checkpoints: agents.checkpoints,
        timeline: new AgentTimeline({ sessions: store.sessions, history: store.history, checkpoints: store.checkpoints }),
        images,
        doctor,
        network: new NetworkService({
          network: store.network,
          agents: store.agents,
          roles: store.roles,
          onChange: (what) => events.publish('network', 'changed', { what })
        }),
        system: { appVersion, home: paths.home, databasePath: paths.database, rotateConsoleToken: () => consoleTokenRotation.rotate?.() },
        confirmHostRun: config.confirmHostRun
      }),
      { onInternalError: (error, channel) => logError(`Airlock: ${channel} failed unexpectedly`, error) }
    )
    let disposed = false
    return {
      homeProblem: sandboxReachProblem(paths.workspaces),
      serveConsoleTokenRotation: (rotate) => {
        consoleTokenRotation.rotate = rotate
      },
      appVersion,
      paths,
      store,
      settings,
      resources,
      agents,
      approvals,
      rules,
      events,
      dispatch,
      recovered,
      async dispose() {
        if (disposed) return
        disposed = true
        await recovered.catch(() => undefined)
        for (const dispose of disposers.reverse()) await dispose()
      }
    }
  } catch (error) {
    store.close()
    throw error
  }
}
