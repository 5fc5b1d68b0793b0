// The built-in actions (SPEC §5.3): the agent-facing tools, each in its own folder.
import type { ActionRegistry } from '../core'
import { browseAction } from './browse'
import { editFileAction } from './edit_file'
import { listDirectoryAction } from './list_directory'
import { mcpToolResolver } from './mcp_tools'
import { createPersistSkillAction } from './persist_skill'
import { readFileAction } from './read_file'
import { runCodeAction } from './run_code'
import { createRunCommandAction, type SessionDirectoryStore } from './run_command'
import { createRunSkillAction } from './run_skill'
import { searchFilesAction } from './search_files'
import type { SkillLedger } from '../files/skills'
import { sqliteQueryAction } from './sqlite_query'
import { vectorSearchAction } from './vector_search'
import { vectorUpsertAction } from './vector_upsert'
import { writeFileAction } from './write_file'

export { listMcpTools, secretsOf, type ProxiedTool } from './mcp_tools'
export { shellRequirement } from './run_command'
export { codeTarget } from './run_code'

/**
 * The built-in action specs by tool name, and the resolver of proxied MCP tools. `run_command`
 * keeps each session's working directory, so it is one instance per process (this one).
 */
export const builtinActions = {
  write_file: writeFileAction,
  read_file: readFileAction,
  edit_file: editFileAction,
  list_directory: listDirectoryAction,
  search_files: searchFilesAction,
  run_command: createRunCommandAction(),
  run_code: runCodeAction,
  sqlite_query: sqliteQueryAction,
  browse: browseAction,
  vector_upsert: vectorUpsertAction,
  vector_search: vectorSearchAction,
  mcpToolResolver
} as const

/**
 * Registers every built-in action and the proxied-tool resolver; returns one disposer for all.
 * `skills` is where skill revisions are recorded: `persist_skill` and `run_skill` exist only with it.
 */
export function registerBuiltinActions(registry: ActionRegistry, options: { skills?: SkillLedger; directories?: SessionDirectoryStore } = {}): () => void {
  const { mcpToolResolver: resolver, ...shared } = builtinActions
  // With a store for sessions' directories, this registry's `run_command` keeps them across restarts.
  const specs = options.directories ? { ...shared, run_command: createRunCommandAction(options.directories) } : shared
  const skillSpecs = options.skills ? [createPersistSkillAction(options.skills), createRunSkillAction(options.skills)] : []
  const disposers = [...[...Object.values(specs), ...skillSpecs].map((spec) => registry.register(spec)), registry.registerResolver(resolver)]
  return () => {
    for (const dispose of disposers) dispose()
  }
}
