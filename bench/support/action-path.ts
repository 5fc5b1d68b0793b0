import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import { agentProfileDefaults, type EffectiveAgentProfile } from '@shared/agents'
import { createRunCommandAction } from '../../src/main/actions/run_command'
import { runCodeAction } from '../../src/main/actions/run_code'
import {
  ActionDispatcher,
  ActionRegistry,
  claimWorkspace,
  ExecutionResourceManager,
  type ActionAgent,
  type ActionCallEnd,
  type ActionHistory,
  type AnyActionSpec,
  type ExecutionResourceProvider
} from '../../src/main/core'

/** A history port that keeps the last end only (a store's cost is not what these benchmarks measure). */
class LastEnd implements ActionHistory {
  last?: ActionCallEnd
  begin(): void {}
  finish(end: ActionCallEnd): void {
    this.last = end
  }
}

/**
 * The full action path an agent's call takes: dispatcher (validation, hooks, history port),
 * registry with `run_code` and `run_command`, and a manager with the given real providers; one
 * claimed workspace under `dir`. `runCode` fails loudly unless the call succeeded.
 */
export function actionPath(dir: string, providers: ExecutionResourceProvider[], profile: Partial<EffectiveAgentProfile>) {
  claimWorkspace(join(dir, 'workspaces', 'bench'))
  const workspace = realpathSync(join(dir, 'workspaces', 'bench'))
  const manager = new ExecutionResourceManager()
  for (const provider of providers) manager.registerProvider(provider)
  const registry = new ActionRegistry()
  registry.register(runCodeAction as unknown as AnyActionSpec)
  registry.register(createRunCommandAction() as unknown as AnyActionSpec)
  const dispatcher = new ActionDispatcher({ manager, registry, history: new LastEnd() })
  const agent: ActionAgent = {
    agentId: 'bench',
    sessionId: 'bench-session',
    workspace,
    profile: { ...agentProfileDefaults, ...profile },
    tools: new Set(['run_code', 'run_command'])
  }
  const runCode = async (sourceCode = 'print(1)') => {
    const result = await dispatcher.execute({ tool: 'run_code', input: { language: 'python', sourceCode }, agent })
    if (result.status !== 'success') throw new Error(`run_code ended ${result.status}: ${JSON.stringify(result.error ?? result.data)}`)
    return result
  }
  const runCommand = async (command: string) => {
    const result = await dispatcher.execute({ tool: 'run_command', input: { command }, agent })
    if (result.status !== 'success') throw new Error(`run_command ended ${result.status}: ${JSON.stringify(result.error ?? result.data)}`)
    return result
  }
  return { workspace, manager, dispatcher, agent, runCode, runCommand, close: () => dispatcher.sessions.end(agent.sessionId) }
}
