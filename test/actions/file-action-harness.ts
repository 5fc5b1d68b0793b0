import { mkdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { agentProfileDefaults, type EffectiveAgentProfile } from '../../src/shared/agents'
import {
  ActionDispatcher,
  ActionRegistry,
  claimWorkspace,
  ExecutionResourceManager,
  type ActionAgent,
  type ActionResult,
  type AnyActionSpec
} from '../../src/main/core'
import { editFileAction } from '../../src/main/actions/edit_file'
import { listDirectoryAction } from '../../src/main/actions/list_directory'
import { readFileAction } from '../../src/main/actions/read_file'
import { searchFilesAction } from '../../src/main/actions/search_files'
import { writeFileAction } from '../../src/main/actions/write_file'
import { makeTempDir } from '../support/temp-home'

/** The five built-in file actions, by tool name. */
export const fileActions: AnyActionSpec[] = [writeFileAction, readFileAction, editFileAction, listDirectoryAction, searchFilesAction]

/**
 * For the file action tests: a temp home with two agents' workspaces claimed as the host claims
 * them (`workspaces/coder`, `workspaces/other`), a folder outside both (`outside/`), and a real
 * dispatcher, registry and manager (the file actions need no provider) calling as `coder`.
 */
export function fileActionHarness(options: { profile?: Partial<EffectiveAgentProfile>; specs?: AnyActionSpec[] } = {}) {
  const home = makeTempDir('airlock-files-', { outsideTmp: true })
  const workspaces = join(home.path, 'workspaces')
  claimWorkspace(join(workspaces, 'coder'))
  claimWorkspace(join(workspaces, 'other'))
  const outside = join(home.path, 'outside')
  mkdirSync(outside)
  const workspace = realpathSync(join(workspaces, 'coder'))
  const specs = options.specs ?? fileActions
  const registry = new ActionRegistry()
  for (const spec of specs) registry.register(spec)
  const manager = new ExecutionResourceManager()
  const dispatcher = new ActionDispatcher({ manager, registry })
  const agent: ActionAgent = {
    agentId: 'coder',
    sessionId: 'session-1',
    workspace,
    profile: { ...agentProfileDefaults, ...options.profile },
    tools: new Set(specs.map((spec) => spec.name))
  }
  return {
    home,
    workspace,
    other: realpathSync(join(workspaces, 'other')),
    outside: realpathSync(outside),
    agent,
    dispatcher,
    /** One call through the dispatcher, as the agent makes it. */
    call: (tool: string, input: unknown, signal?: AbortSignal): Promise<ActionResult> => dispatcher.execute({ tool, input, agent, signal }),
    /** The path of `relative` inside the workspace. */
    at: (relative: string) => join(workspace, relative),
    remove: () => home.remove()
  }
}

/** The `data` of a result that must have succeeded (its error in the failure message otherwise). */
export function dataOf<T>(result: ActionResult): T {
  if (!result.ok) throw new Error(`expected success, got ${result.status}: ${result.error?.code} ${result.error?.message}`)
  return result.data as T
}
