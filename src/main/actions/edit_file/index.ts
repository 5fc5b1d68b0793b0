import { z } from 'zod'
import type { ActionSpec } from '../../core/action-runtime'
import { sandboxIdentity } from '../../core/sandbox'
import {
  assertWithinQuota,
  assertWritableName,
  fileActionOutcome,
  filePathSchema,
  joinComponents,
  pathComponents,
  readWhole,
  replaceFile,
  withWorkspaceFile,
  WorkspaceFileError,
  workspaceLimits
} from '../../files/workspace'
import { previewFileChange } from './change-preview'
import { replacementDiff } from './unified-diff'

export { diffContextLines, replacementDiff, splitLines } from './unified-diff'
export { previewFileChange } from './change-preview'

/** The input of `edit_file`: the exact text to find and what replaces it (literally). */
export const editFileInputSchema = z
  .object({
    path: filePathSchema,
    oldText: z
      .string()
      .min(1, 'must not be empty')
      .describe('The exact text to replace, whitespace included; it must occur exactly once unless replaceAll is true.'),
    newText: z.string().describe('The text that replaces it, literally (no $& or $1 patterns).'),
    replaceAll: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one.')
  })
  .strict()

/** What `edit_file` returns: the path, a unified diff of the change, and how many places changed. */
export type EditFileData = { path: string; diff: string; replacements: number }

/** The longest diff returned whole; a longer one is cut at a line with a note of how much was left out. */
export const maxDiffBytes = 256 * 1024

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * `edit_file` (SPEC §5.3): replaces `oldText` with `newText` in a text file of the workspace.
 * `oldText` must occur exactly once unless `replaceAll` (0 or several: refused, saying how many).
 * The replacement is literal. Binary files (a NUL byte, or not valid UTF-8) and files over 16 MiB
 * are refused. The file is opened and replaced in the same verified folder, the new content
 * written beside it and renamed over it (atomic, never through a link), keeping its permission
 * bits; like every write it is refused past the workspace's disk quota.
 */
export const editFileAction: ActionSpec<typeof editFileInputSchema> = {
  name: 'edit_file',
  description:
    'Replace exact text in a file of your workspace. oldText must occur exactly once (include surrounding lines to make it unique) unless replaceAll is true. The replacement is literal. Returns a unified diff of the change.',
  inputSchema: editFileInputSchema,
  effects: 'write',
  summarize: (input) => `edit_file ${input.path}${input.replaceAll ? ' (replace all)' : ''}`,
  preview: ({ input, agent }) => previewFileChange(agent.workspace, input.path, input),
  executor: {
    execute: ({ input, agent, signal }) =>
      fileActionOutcome(async () => {
        const components = pathComponents(input.path, 'file')
        return withWorkspaceFile(agent.workspace, components, async (file) => {
          const path = joinComponents(file.entry.components)
          assertWritableName(file.entry.components)
          const bytes = await readWhole(file.fd, file.stat, workspaceLimits.maxFileBytes, file.entry.components)
          const before = decodeText(bytes, path)
          const positions = occurrences(before, input.oldText, input.replaceAll === true ? Number.POSITIVE_INFINITY : 2)
          if (positions.length === 0)
            throw new WorkspaceFileError(
              'no_match',
              `oldText was not found in ${path} (0 matches); nothing was changed. Read the file and copy the text exactly, whitespace included.`,
              { path, matches: 0 }
            )
          if (positions.length > 1 && input.replaceAll !== true) {
            const total = occurrences(before, input.oldText, Number.POSITIVE_INFINITY).length
            throw new WorkspaceFileError(
              'ambiguous_match',
              `oldText matches ${total} times in ${path}; nothing was changed. Include more surrounding text to make it unique, or set replaceAll.`,
              { path, matches: total }
            )
          }
          const after = replaced(before, positions, input.oldText.length, input.newText)
          const next = Buffer.from(after, 'utf8')
          if (next.length > workspaceLimits.maxFileBytes)
            throw new WorkspaceFileError('too_large', `The edit would make ${path} ${next.length} bytes; the limit is ${workspaceLimits.maxFileBytes}.`, {
              path,
              bytes: next.length
            })
          await assertWithinQuota(agent.workspace, agent.profile.limits.diskMb, next.length - bytes.length, { signal })
          replaceFile(file.entry.dirFd, file.entry.name, next, { mode: file.stat.mode, owner: sandboxIdentity(), components: file.entry.components })
          const diff = bounded(replacementDiff(joinComponents(components), before, positions, input.oldText.length, input.newText))
          return { data: { path: joinComponents(components), diff, replacements: positions.length } satisfies EditFileData }
        })
      }, signal)
  }
}

/** The text of a file, or `binary_file` when it has a NUL byte or is not valid UTF-8. */
function decodeText(bytes: Buffer, path: string): string {
  const refuse = (why: string) =>
    new WorkspaceFileError('binary_file', `${path} ${why}; edit_file changes text files only (write_file replaces a file whole).`, { path })
  if (bytes.includes(0)) throw refuse('contains NUL bytes (binary)')
  try {
    return strictUtf8.decode(bytes)
  } catch {
    throw refuse('is not valid UTF-8 text')
  }
}

/** Where `needle` occurs in `text` (not overlapping, left to right), at most `limit` places. */
function occurrences(text: string, needle: string, limit: number): number[] {
  const found: number[] = []
  for (let at = text.indexOf(needle); at >= 0 && found.length < limit; at = text.indexOf(needle, at + needle.length)) found.push(at)
  return found
}

/** `text` with `length` characters at each position replaced by `replacement`, literally. */
function replaced(text: string, positions: readonly number[], length: number, replacement: string): string {
  const parts: string[] = []
  let cursor = 0
  for (const at of positions) {
    parts.push(text.slice(cursor, at), replacement)
    cursor = at + length
  }
  parts.push(text.slice(cursor))
  return parts.join('')
}

/** A diff cut at a line boundary past `maxDiffBytes`, saying how much was left out. */
function bounded(diff: string): string {
  const bytes = Buffer.from(diff, 'utf8')
  if (bytes.length <= maxDiffBytes) return diff
  const head = bytes.subarray(0, maxDiffBytes).toString('utf8')
  const kept = head.slice(0, head.lastIndexOf('\n') + 1)
  return `${kept}... diff cut: ${bytes.length - Buffer.byteLength(kept, 'utf8')} more bytes not shown (the file was changed in full)\n`
}
