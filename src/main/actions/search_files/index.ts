import { closeSync } from 'node:fs'
import picomatch from 'picomatch'
import { z } from 'zod'
import type { ActionSpec } from '../../core/action-runtime'
import {
  closeWorkspace,
  directoryPathSchema,
  fileActionOutcome,
  joinComponents,
  openResolvedDirectory,
  openWorkspace,
  openWorkspaceFile,
  pathComponents,
  reopen,
  resolveEntry,
  WorkspaceFileError,
  type ResolvedEntry,
  type WorkspaceRoot
} from '../../files/workspace'
import { SearchMatcher } from './search-matcher'
import { searchBounds, SearchWalk, type SearchBounds, type SearchMatch } from './search-walk'

export { ignoreFileNames, searchBounds, type SearchBounds, type SearchMatch } from './search-walk'

/** The input of `search_files`: literal text by default, a JavaScript regular expression with `regex`. */
export const searchFilesInputSchema = z
  .object({
    pattern: z
      .string()
      .min(1, 'must not be empty')
      .max(1000)
      .describe('The text to find on a line (literal, case-sensitive), or a JavaScript regular expression when regex is true.'),
    path: directoryPathSchema.optional().describe('The folder (or one file) to search, relative to the workspace (default: the whole workspace).'),
    glob: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .describe('Only files whose workspace-relative path matches this glob (e.g. **/*.ts, or *.ts for a name at any depth).'),
    regex: z.boolean().optional().describe('Treat pattern as a JavaScript regular expression, matched line by line.')
  })
  .strict()

/** What `search_files` returns: matching lines (`file:line: text`), and whether a bound cut the search. */
export type SearchFilesData = { matches: SearchMatch[]; truncated: boolean }

/**
 * Builds `search_files` (SPEC §5.3) with its bounds (tests shorten the deadline). Like ripgrep:
 * line by line, `.gitignore` and `.ignore` files respected (from the workspace root down; a folder
 * given as `path` is searched even if they ignore it, as ripgrep searches a path it is given), `.git`,
 * binary files (a NUL byte) and files over 4 MiB skipped, links not followed; hidden files are
 * searched. A glob without `/` matches a name at any depth. The pattern, the glob and the ignore
 * files run in a worker thread under a deadline: a catastrophic regular expression costs its own
 * search the deadline and never stalls Airlock. Results are bounded (`searchBounds`).
 */
export function createSearchFilesAction(bounds: SearchBounds = searchBounds): ActionSpec<typeof searchFilesInputSchema> {
  return {
    name: 'search_files',
    description: `Search the text files of your workspace for a pattern, line by line (literal by default; a JavaScript regular expression when regex is true), skipping what .gitignore ignores, .git and binary files. path narrows to a folder or file, glob to matching file paths. At most ${bounds.maxMatches} matches; truncated says there may be more.`,
    inputSchema: searchFilesInputSchema,
    effects: 'read',
    summarize: (input) =>
      `search_files ${JSON.stringify(input.pattern.slice(0, 100))}${input.path ? ` in ${input.path}` : ''}${input.glob ? ` (${input.glob})` : ''}`,
    executor: {
      execute: ({ input, agent, signal }) =>
        fileActionOutcome(async () => {
          checkPatterns(input.pattern, input.regex === true, input.glob)
          const components = pathComponents(input.path ?? '.', 'directory')
          const root = openWorkspace(agent.workspace)
          let walk: SearchWalk
          try {
            const entry = resolveEntry(root, components, { parents: 'require' })
            let matcher: SearchMatcher | undefined
            try {
              const options = {
                pattern: input.pattern,
                regex: input.regex === true,
                glob: input.glob,
                maxLineChars: bounds.maxLineChars,
                root: entry.components.join('/')
              }
              matcher = new SearchMatcher(options, bounds.deadlineMs, signal)
              walk = new SearchWalk(matcher, signal, bounds)
              await search(root, entry, components, walk).catch((error: unknown) => walk.stoppedBy(error))
            } finally {
              closeSync(entry.dirFd)
              await matcher?.close()
            }
          } finally {
            closeWorkspace(root)
          }
          const result = walk.finish()
          return { data: { matches: result.matches, truncated: result.truncated } satisfies SearchFilesData, diagnostics: result.notes }
        }, signal)
    }
  }
}

/** `search_files` with the standard bounds. */
export const searchFilesAction = createSearchFilesAction()

/** Refuses a regular expression or glob that does not compile (compiling runs nothing: it is safe here). */
function checkPatterns(pattern: string, regex: boolean, glob: string | undefined): void {
  if (regex) {
    try {
      new RegExp(pattern)
    } catch (error) {
      throw new WorkspaceFileError('invalid_pattern', `pattern is not a valid JavaScript regular expression: ${(error as Error).message}`, { field: 'pattern' })
    }
  }
  if (glob !== undefined) {
    try {
      picomatch.makeRe(glob, { dot: true, basename: !glob.includes('/') })
    } catch (error) {
      throw new WorkspaceFileError('invalid_pattern', `glob is not a valid glob: ${(error as Error).message}`, { field: 'glob' })
    }
  }
}

/** Searches what the path resolved to: one file (searched whatever the glob and ignore files say) or a folder tree. */
async function search(root: WorkspaceRoot, entry: ResolvedEntry, components: readonly string[], walk: SearchWalk): Promise<void> {
  if (entry.name !== undefined && entry.stat && !entry.stat.isDirectory()) {
    const file = openWorkspaceFile(root, components)
    try {
      const dir = file.entry.components.slice(0, -1)
      const name = Buffer.from(file.entry.name)
      await walk.searchFile(file.entry.dirFd, name, joinComponents([...dir, file.entry.name]))
    } finally {
      closeSync(file.fd)
      closeSync(file.entry.dirFd)
    }
    return
  }
  // The ignore files of the folders above the search root apply below it too.
  for (let depth = 0; depth < entry.components.length; depth++) {
    const above = reopen(root, entry.components.slice(0, depth))
    try {
      await walk.addAncestor(above, entry.components.slice(0, depth).join('/'))
    } finally {
      closeSync(above)
    }
  }
  const folder = openResolvedDirectory(entry)
  try {
    await walk.walk(folder, entry.components.join('/'))
  } finally {
    closeSync(folder)
  }
}
