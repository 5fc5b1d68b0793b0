import { join } from 'node:path'
import type { EffectiveAgentProfile, McpServerConfig } from '@shared/agents'
import type { CodeLanguage } from '@shared/code-execution'
import { builtinActions, codeTarget, shellRequirement } from '../actions'
import { codeExecutionRequirement, type ActionAgent } from '../core'
import { allowedRuntimes, combineCapabilities, everyLanguage, noCapability, type AgentCapability } from './agent-capability'

/** Who a capability is enabled for: the agent's decided profile and its workspace. */
export type CapabilityTarget = { profile: EffectiveAgentProfile; workspace: string }

/** `files`: read, write, edit, list and search inside the agent's own workspace (no resource needed). */
export function enableWorkspaceFiles(_target: CapabilityTarget): AgentCapability {
  const actions = [builtinActions.write_file, builtinActions.read_file, builtinActions.edit_file, builtinActions.list_directory, builtinActions.search_files]
  return { ...noCapability(), tools: actions.map((a) => a.name), actions }
}

/** `shell`: `run_command` through the agent's ordered sandbox providers, in a warm session shell. */
export function enableShell(target: CapabilityTarget): AgentCapability {
  const requirement = shellRequirement(agentOf(target))
  return {
    ...noCapability(),
    tools: ['run_command'],
    actions: [builtinActions.run_command],
    requirements: [{ ...requirement, scope: 'session' }],
    policy: requirement.policy ?? {}
  }
}

/** `code_runtime` for one language (or every language the profile allows): `run_code` through the ordered providers, and skills (`persist_skill`, `run_skill`, SPEC §6.4). */
export function enableCodeRuntime(target: CapabilityTarget, options: { language?: CodeLanguage } = {}): AgentCapability {
  const runtimes = allowedRuntimes(target.profile, options.language ? [options.language] : everyLanguage)
  if (runtimes.length === 0) return noCapability()
  const code = codeTarget(agentOf(target))
  // The same requirement run_code holds for a session, rooted at the workspace's executions folder (declared, not created here).
  const policy = { ...code.policy, workspaceRoots: [join(target.workspace, '.airlock', 'executions')] }
  return {
    ...noCapability(),
    // Skills run through the same code execution; their specs need the host's skill ledger, so the host registers them.
    tools: ['run_code', 'persist_skill', 'run_skill'],
    actions: [builtinActions.run_code],
    requirements: runtimes.map((language) => codeExecutionRequirement({ ...code, language, policy })),
    policy: code.policy,
    runtimes
  }
}

/** `python`: `run_code` for Python. */
export function enablePython(target: CapabilityTarget): AgentCapability {
  return enableCodeRuntime(target, { language: 'python' })
}

/** `nodejs`: `run_code` for Node.js. */
export function enableNodejs(target: CapabilityTarget): AgentCapability {
  return enableCodeRuntime(target, { language: 'nodejs' })
}

/** `sqlite`: `sqlite_query` on databases inside the workspace (writes need policy or approval). */
export function enableSqlite(_target: CapabilityTarget): AgentCapability {
  return { ...noCapability(), tools: ['sqlite_query'], actions: [builtinActions.sqlite_query], requirements: [{ kind: 'sqlite', scope: 'action_call' }] }
}

/** `browser`: `browse`, under the agent's network mode (none blocks it). */
export function enableBrowser(target: CapabilityTarget): AgentCapability {
  return {
    ...noCapability(),
    tools: ['browse'],
    actions: [builtinActions.browse],
    requirements: [{ kind: 'browser', scope: 'session' }],
    policy: { networkMode: target.profile.network === 'full' ? 'full' : 'none' }
  }
}

/** `vector_store`: `vector_upsert` and `vector_search` on the agent's own collection store. */
export function enableVectorStore(_target: CapabilityTarget): AgentCapability {
  return {
    ...noCapability(),
    tools: ['vector_upsert', 'vector_search'],
    actions: [builtinActions.vector_upsert, builtinActions.vector_search],
    requirements: [{ kind: 'vector_store', scope: 'session' }]
  }
}

/** An upstream MCP server attached to the agent: its tools appear as `<server>__<tool>`. */
export function useMcp(server: McpServerConfig): AgentCapability {
  return {
    ...noCapability(),
    tools: [`${server.name}__*`],
    resolvers: [builtinActions.mcpToolResolver],
    requirements: [{ kind: 'mcp', scope: 'session', resourceKey: `mcp:${server.name}` }]
  }
}

/** `files` + `shell` + every code runtime the profile allows: the write / run / fix loop. */
export function enableCodingWorkspace(target: CapabilityTarget): AgentCapability {
  return combineCapabilities(enableWorkspaceFiles(target), enableShell(target), enableCodeRuntime(target))
}

/**
 * Applies a profile's `capabilities` list through the helpers above (SPEC §6.1): the one place a
 * capability name turns into tools. `mcp` attaches every server in `mcpServers`.
 */
export function capabilitiesOf(target: CapabilityTarget): AgentCapability {
  const parts = target.profile.capabilities.map((name): AgentCapability => {
    switch (name) {
      case 'files':
        return enableWorkspaceFiles(target)
      case 'shell':
        return enableShell(target)
      case 'python':
        return enablePython(target)
      case 'nodejs':
        return enableNodejs(target)
      case 'code_runtime':
        return enableCodeRuntime(target)
      case 'sqlite':
        return enableSqlite(target)
      case 'browser':
        return enableBrowser(target)
      case 'vector_store':
        return enableVectorStore(target)
      case 'mcp':
        return combineCapabilities(...target.profile.mcpServers.map(useMcp))
    }
  })
  return combineCapabilities(...parts)
}

/** The agent as the actions see it, for computing the requirements they will hold (no session yet). */
function agentOf(target: CapabilityTarget): ActionAgent {
  return { agentId: '', sessionId: '', workspace: target.workspace, profile: target.profile, tools: new Set() }
}
