import { chownSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type Docker from 'dockerode'
import { agentProfileDefaults, type EffectiveAgentProfile } from '@shared/agents'
import { createRunCommandAction } from '../../src/main/actions/run_command'
import { runCodeAction } from '../../src/main/actions/run_code'
import {
  ActionDispatcher,
  ActionRegistry,
  claimWorkspace,
  ExecutionResourceManager,
  sandboxIdentity,
  type ActionAgent,
  type ActionCallEnd,
  type ActionHistory,
  type ActionResult,
  type AnyActionSpec
} from '../../src/main/core'
import { BashProvider, BubblewrapProvider, DockerProvider, TrustedLocalProvider } from '../../src/main/providers'
import { makeTempDir } from '../support/temp-home'

/** History as the store would receive it: the ends of calls, for assertions. */
class EndsHistory implements ActionHistory {
  readonly ends: ActionCallEnd[] = []
  begin(): void {}
  finish(end: ActionCallEnd): void {
    this.ends.push(end)
  }
}

/**
 * The real path of an agent's executions: a dispatcher and registry with `run_command` and
 * `run_code`, a manager with the real bubblewrap, docker, trusted_local and host bash providers,
 * and one claimed workspace under a temp dir outside /tmp.
 */
export function executionHarness(options: { prefix: string; docker: Docker }) {
  const dir = makeTempDir(options.prefix, { outsideTmp: true })
  claimWorkspace(join(dir.path, 'workspaces', 'coder'))
  const workspace = realpathSync(join(dir.path, 'workspaces', 'coder'))
  const manager = new ExecutionResourceManager()
    .registerProvider(new BubblewrapProvider())
    .registerProvider(new DockerProvider({ home: dir.path, docker: options.docker }))
    .registerProvider(new TrustedLocalProvider())
    .registerProvider(new BashProvider())
  const registry = new ActionRegistry()
  // Typed specs do not assign to AnyActionSpec yet (`executionResources` is a contravariant property in core).
  registry.register(createRunCommandAction() as unknown as AnyActionSpec)
  registry.register(runCodeAction as unknown as AnyActionSpec)
  const history = new EndsHistory()
  const dispatcher = new ActionDispatcher({ manager, registry, history })

  /** The agent of one session, with the product defaults under `profile`. */
  const agent = (sessionId: string, profile: Partial<EffectiveAgentProfile> = {}): ActionAgent => ({
    agentId: 'coder',
    sessionId,
    workspace,
    profile: { ...agentProfileDefaults, ...profile },
    tools: new Set(['run_command', 'run_code'])
  })
  /** One call through the dispatcher. */
  const call = (tool: string, input: unknown, who: ActionAgent, signal?: AbortSignal): Promise<ActionResult> =>
    dispatcher.execute({ tool, input, agent: who, signal })
  /** Puts a file into the workspace as the host, owned by the sandbox identity (so sandboxed code can edit it). */
  const hostWrite = (path: string, content: string) => {
    const target = join(workspace, path)
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, content)
    const identity = sandboxIdentity()
    if (identity.dedicated) {
      if (dirname(target) !== workspace) chownSync(dirname(target), identity.uid, identity.gid)
      chownSync(target, identity.uid, identity.gid)
    }
  }
  /** Ends every session the tests opened and removes the temp dir. */
  const close = async () => {
    for (const session of dispatcher.sessions.sessions()) await dispatcher.sessions.end(session).catch(() => undefined)
    await manager.releaseAll()
    dir.remove()
  }
  return { dir, workspace, manager, dispatcher, history, agent, call, hostWrite, close }
}

/** The `data` of a run_command / run_code result. */
export type ExecutionData = {
  stdout: string
  stderr: string
  exitCode: number
  durationMs: number
  stdoutTruncated: boolean
  stderrTruncated: boolean
  cwd?: string
  outputs?: { path: string; bytes: number; sha256: string }[]
}

/** A result's data, typed for assertions. */
export function dataOf(result: ActionResult): ExecutionData {
  return result.data as ExecutionData
}

/** Waits until `check` holds (polling), failing after `attempts` tries. */
export async function until(check: () => boolean, what: string, attempts = 400): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`gave up waiting for ${what}`)
}
