// The built-in actions (SPEC §5.3): the agent-facing tools, each in its own folder.
import type { ActionRegistry } from '../core'
import { browseAction } from './browse'
import { editFileAction } from './edit_file'
import { listDirectoryAction } from './list_directory'
import { mcpToolResolver } from './mcp_tools'
import { readFileAction } from './read_file'
import { runCodeAction } from './run_code'
import { createRunCommandAction } from './run_command'
import { searchFilesAction } from './search_files'
import { sqliteQueryAction } from './sqlite_query'
import { vectorSearchAction } from './vector_search'
import { vectorUpsertAction } from './vector_upsert'
import { writeFileAction } from './write_file'

export { listMcpTools, secretsOf, type ProxiedTool } from './mcp_tools'
export { assertWithinQuota, workspaceUsage } from './workspace-files'
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

/** Registers every built-in action and the proxied-tool resolver; returns one disposer for all. */
export function registerBuiltinActions(registry: ActionRegistry): () => void {
  const { mcpToolResolver: resolver, ...specs } = builtinActions
  const disposers = [...Object.values(specs).map((spec) => registry.register(spec)), registry.registerResolver(resolver)]
  return () => {
    for (const dispose of disposers) dispose()
  }
}
