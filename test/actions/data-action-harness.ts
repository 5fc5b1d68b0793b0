import { randomUUID } from 'node:crypto'
import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import { agentProfileDefaults, type EffectiveAgentProfile } from '../../src/shared/agents'
import {
  ActionDispatcher,
  ActionRegistry,
  claimWorkspace,
  ExecutionResourceManager,
  PolicyApproval,
  type ActionAgent,
  type ActionCallEnd,
  type ActionCallStart,
  type ActionHistory,
  type ActionResult,
  type ApprovalDecision,
  type ApprovalRequest,
  type ExecutionResourceProvider
} from '../../src/main/core'
import { makeTempDir } from '../support/temp-home'

/** An ActionHistory that keeps what the dispatcher hands it, to look through afterwards. */
export class RecordingHistory implements ActionHistory {
  readonly starts: ActionCallStart[] = []
  readonly ends: ActionCallEnd[] = []
  begin(start: ActionCallStart): void {
    this.starts.push(structuredClone(start))
  }
  finish(end: ActionCallEnd): void {
    this.ends.push(structuredClone(end))
  }
}

/**
 * For the sqlite_query, browse and MCP tool tests: a real dispatcher, registry and manager with the given real providers, a recording history, an
 * approval handler the test answers (`decide`), and one agent workspace claimed like the host does.
 */
export function dataActionHarness(providers: ExecutionResourceProvider[]) {
  const home = makeTempDir('airlock-actions-', { outsideTmp: true })
  const workspace = join(home.path, 'workspaces', 'agent-1')
  claimWorkspace(workspace)
  const asked: ApprovalRequest[] = []
  let decide: (request: ApprovalRequest) => ApprovalDecision = () => ({ status: 'pending', reason: 'nobody decided' })
  const approval = new PolicyApproval().registerHandler('test', (request) => {
    asked.push(request)
    return decide(request)
  })
  approval.setDefaultHandler('test')
  const manager = new ExecutionResourceManager({ approval })
  for (const provider of providers) manager.registerProvider(provider)
  const registry = new ActionRegistry()
  const history = new RecordingHistory()
  const dispatcher = new ActionDispatcher({ manager, registry, history })
  return {
    home,
    workspace: realpathSync(workspace),
    manager,
    registry,
    history,
    dispatcher,
    asked,
    /** Calls a tool as `agent` through the dispatcher. */
    call(tool: string, input: unknown, agent: ActionAgent): Promise<ActionResult> {
      return dispatcher.execute({ tool, input, agent })
    },
    /** Sets how the operator answers the next approval requests. */
    answer(next: (request: ApprovalRequest) => ApprovalDecision) {
      decide = next
    },
    /** An agent of this workspace with the given tools and profile overrides, in a fresh session. */
    agent(tools: string[], profile: Partial<EffectiveAgentProfile> = {}, secrets: string[] = []): ActionAgent {
      return {
        agentId: 'agent-1',
        sessionId: randomUUID(),
        workspace: realpathSync(workspace),
        profile: { ...agentProfileDefaults, ...profile },
        tools: new Set(tools),
        secrets
      }
    },
    async close() {
      for (const sessionId of dispatcher.sessions.sessions()) await dispatcher.sessions.end(sessionId)
      await manager.releaseAll()
      home.remove()
    }
  }
}
