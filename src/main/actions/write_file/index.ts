import { closeSync } from 'node:fs'
import { z } from 'zod'
import type { ActionSpec } from '../../core/action-runtime'
import { sandboxIdentity } from '../../core/sandbox'
import {
  assertPlainFile,
  assertWithinQuota,
  assertWritableName,
  closeWorkspace,
  fileActionOutcome,
  fileContentSchema,
  filePathSchema,
  joinComponents,
  openWorkspace,
  pathComponents,
  replaceFile,
  resolveEntry,
  WorkspaceFileError,
  type ResolvedEntry
} from '../../files/workspace'
import { previewFileChange } from '../edit_file/change-preview'

/** The input of `write_file`: a workspace-relative path and the whole new text of the file. */
export const writeFileInputSchema = z
  .object({
    path: filePathSchema,
    content: fileContentSchema.describe('The complete new content of the file (UTF-8 text, at most 16 MiB).')
  })
  .strict()

/** What `write_file` returns: the path as given (normalised) and the bytes written. */
export type WriteFileData = { path: string; bytes: number }

/**
 * `write_file` (SPEC §5.3): creates or replaces a file in the agent's workspace, creating missing
 * folders. The file is written as a new file beside the target and renamed over it (atomic; a link
 * there is replaced, never written through); an existing file keeps its permission bits, a new one
 * is 0644; both, and new folders, belong to the sandbox identity so the agent's sandboxed commands
 * can change them. Refused, with nothing written: a path outside the workspace (or leading out
 * through a link), `.airlock/` and `.exec_history`, a hard-linked or non-regular target, and a
 * write that would take the workspace over its disk quota (`limits.diskMb`).
 */
export const writeFileAction: ActionSpec<typeof writeFileInputSchema> = {
  name: 'write_file',
  description:
    'Create or overwrite a text file in your workspace with the given content, creating missing folders. Paths are relative to the workspace. Returns the path and the number of bytes written.',
  inputSchema: writeFileInputSchema,
  effects: 'write',
  summarize: (input) => `write_file ${input.path} (${Buffer.byteLength(input.content, 'utf8')} bytes)`,
  preview: ({ input, agent }) => previewFileChange(agent.workspace, input.path, input),
  executor: {
    execute: ({ input, agent, signal }) =>
      fileActionOutcome(async () => {
        const components = pathComponents(input.path, 'file')
        const bytes = Buffer.from(input.content, 'utf8')
        const root = openWorkspace(agent.workspace)
        try {
          // First look without creating anything, so a refusal (or the quota) leaves no folder behind.
          const look = resolveEntry(root, components, { parents: 'stop' })
          let existingBytes = 0
          try {
            assertWritable(look)
            existingBytes = look.stat?.size ?? 0
          } finally {
            closeSync(look.dirFd)
          }
          await assertWithinQuota(agent.workspace, agent.profile.limits.diskMb, bytes.length - existingBytes, { signal })
          const owner = sandboxIdentity()
          const entry = resolveEntry(root, components, { parents: 'create', owner })
          try {
            const target = assertWritable(entry)
            replaceFile(entry.dirFd, target, bytes, { mode: entry.stat ? entry.stat.mode : 0o644, owner, components: entry.components })
          } finally {
            closeSync(entry.dirFd)
          }
          const path = joinComponents(components)
          const real = joinComponents(entry.components)
          return {
            data: { path, bytes: bytes.length } satisfies WriteFileData,
            diagnostics: real === path ? [] : [`written to ${real} (${path} leads there through a symbolic link)`]
          }
        } finally {
          closeWorkspace(root)
        }
      }, signal)
  }
}

/** Refuses a target that is not a file that may be replaced; returns its name in the resolved folder. */
function assertWritable(entry: ResolvedEntry): string {
  const path = joinComponents(entry.components)
  if (entry.name === undefined) throw new WorkspaceFileError('is_directory', `${path} is a folder; name a file to write.`, { path })
  assertWritableName(entry.components)
  if (entry.stat) assertPlainFile(entry.stat, entry.components)
  return entry.name
}
