import type { EffectiveAgentProfile } from '@shared/agents'
import type { ActionAgent } from '../core'
import { capabilitiesOf } from './enable-capabilities'

/** What an agent may do, decided once per session from its profile: tools, runtimes, and the requirements behind them. */
export type AgentToolset = {
  tools: ReadonlySet<string>
  /** The profile actions see: `runtimes` narrowed to what the capabilities allow. */
  profile: EffectiveAgentProfile
  capability: ReturnType<typeof capabilitiesOf>
}

/**
 * Applies the agent's capabilities: the tools it may call and the profile its actions run under.
 * A `run_code` without any allowed runtime is not offered.
 */
export function agentToolset(profile: EffectiveAgentProfile, workspace: string): AgentToolset {
  const capability = capabilitiesOf({ profile, workspace })
  return { tools: new Set(capability.tools), profile: { ...profile, runtimes: capability.runtimes }, capability }
}

/** The `ActionAgent` the dispatcher needs for one session of an agent. */
export function actionAgent(input: {
  agentId: string
  sessionId: string
  workspace: string
  profile: EffectiveAgentProfile
  secrets?: readonly string[]
}): ActionAgent {
  const toolset = agentToolset(input.profile, input.workspace)
  return {
    agentId: input.agentId,
    sessionId: input.sessionId,
    workspace: input.workspace,
    profile: toolset.profile,
    tools: toolset.tools,
    secrets: input.secrets ?? []
  }
}
