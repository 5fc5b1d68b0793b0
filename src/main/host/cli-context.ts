import { existsSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { ActionHistoryRecorder } from '../console/action-history-recorder'
import { AgentService, defaultsFromSettings } from '../console/agent-service'
import { AgentWorkspaces } from '../console/agent-workspaces'
import { ApprovalQueue, RuleService } from '../console/approvals'
import type { WorkspaceCheckpoints } from '../console/checkpoints'
import type { DoctorService } from '../console/doctor'
import { HistoryService } from '../console/history-service'
import { RoleService } from '../console/role-service'
import { SettingsService } from '../console/settings-service'
import { SkillService } from '../console/skill-service'
import { loadCommandAnalyzer, type CommandDecision } from '../core'
import { openStore, type Store } from '../store'
import { createCheckpoints } from './checkpoint-wiring'
import { airlockPaths, createDataDirectories, createHomeDirectory, resolveHome, type AirlockPaths } from './paths'

/** How a command opens its home. */
export type CliContextOptions = {
  home?: string
  /** Make the home and its folders when they are missing (`agent create`, `role save`, `doctor`). */
  create?: boolean
  /** Make the folders of a home that has a database (workspaces, checkpoints) when they are missing. */
  folders?: boolean
  /** The error a command throws when the home has no database yet (and `create` is off). */
  missing?: (paths: AirlockPaths) => Error
}

/**
 * The CLI's one composition root: a command opens its home here and takes the services it uses.
 * Each service is built on first use over the one store; providers (`doctor`) and the policy's
 * dispatcher (`policy check`) load only when asked, so a command that reads rows loads no more.
 */
export class CliContext {
  private readonly built = new Map<string, unknown>()
  private readonly closers: (() => Promise<void>)[] = []

  constructor(
    readonly paths: AirlockPaths,
    readonly store: Store
  ) {}

  get settings(): SettingsService {
    return this.once('settings', () => new SettingsService(this.store.settings))
  }

  get workspaces(): AgentWorkspaces {
    return this.once('workspaces', () => new AgentWorkspaces(this.paths.workspaces))
  }

  get agents(): AgentService {
    const { store } = this
    return this.once(
      'agents',
      () => new AgentService({ agents: store.agents, roles: store.roles, workspaces: this.workspaces, defaults: defaultsFromSettings(this.settings) })
    )
  }

  get roles(): RoleService {
    return this.once('roles', () => new RoleService({ roles: this.store.roles, agents: this.store.agents }))
  }

  get history(): HistoryService {
    return this.once('history', () => new HistoryService(this.store.history))
  }

  /** The approval queue and remembered rules (not started: a command polls nothing). */
  get approvals(): { queue: ApprovalQueue; rules: RuleService } {
    return this.once('approvals', () => {
      const rules = new RuleService({ store: this.store, analyzer: loadCommandAnalyzer })
      return { queue: new ApprovalQueue({ store: this.store, rules }), rules }
    })
  }

  /** Skill revisions, decided as `cli`. */
  get skills(): SkillService {
    const { store } = this
    return this.once(
      'skills',
      () => new SkillService({ repository: store.skills, queue: store, decidedBy: 'cli', onChange: (change) => store.events.append('skill.changed', change) })
    )
  }

  /** Checkpoints without a workspace watch (a one-shot command walks what it needs). */
  get checkpoints(): WorkspaceCheckpoints {
    return this.once('checkpoints', () => {
      const workspaceOf = (agentId: string) => (this.store.agents.get(agentId) ? join(realpathSync(this.paths.workspaces), agentId) : undefined)
      return createCheckpoints({
        store: this.store,
        directory: this.paths.checkpoints,
        settings: this.settings,
        workspaceOf,
        recorder: new ActionHistoryRecorder({ repository: this.store.history, workspaceOf })
      })
    })
  }

  /** The doctor over this machine's built-in providers (loaded now; nothing is recovered or ended). */
  async doctor(): Promise<DoctorService> {
    const [doctor, { ExecutionResourceManager }, { createBuiltinProviders }] = await Promise.all([
      import('../console/doctor'),
      import('../core'),
      import('../providers')
    ])
    const manager = new ExecutionResourceManager()
    for (const provider of createBuiltinProviders({ home: this.paths.home })) manager.registerProvider(provider)
    // What the doctor's probes left held is released when the command ends (it recovers nothing of a running console's).
    this.closers.push(() => manager.releaseAll().then(() => undefined))
    return new doctor.DoctorService({ manager, stageDir: join(this.paths.home, 'doctor'), reports: this.store.doctor })
  }

  /** What a `run_command` of `line` by the agent would meet, checked by the dispatcher's own `check` (see policy-check.ts). */
  async checkRunCommand(agentId: string, line: string): Promise<CommandDecision> {
    const { checkRunCommand } = await import('./policy-check')
    return checkRunCommand(this, agentId, line)
  }

  /** Releases what the command's services hold; failures are dropped (the command's own result stands). */
  async close(): Promise<void> {
    for (const close of this.closers.splice(0)) await close().catch(() => undefined)
  }

  private once<T>(name: string, build: () => T): T {
    if (!this.built.has(name)) this.built.set(name, build())
    return this.built.get(name) as T
  }
}

/** Opens the home for one command, runs `use`, and closes the store whatever happens. */
export async function withCliContext<T>(options: CliContextOptions, use: (cli: CliContext) => T | Promise<T>): Promise<T> {
  const paths = airlockPaths(resolveHome(options.home))
  if (options.create) createHomeDirectory(paths.home)
  else if (!existsSync(paths.database)) throw options.missing?.(paths) ?? new Error(`no Airlock database at ${paths.database} (check --home or AIRLOCK_HOME)`)
  const store = openStore(paths.database)
  try {
    if (options.create || options.folders) createDataDirectories(paths)
    const cli = new CliContext(paths, store)
    try {
      return await use(cli)
    } finally {
      await cli.close()
    }
  } finally {
    store.close()
  }
}
