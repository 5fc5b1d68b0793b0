import { z } from 'zod'
import type { ActionSpec } from '../../core/action-runtime'
import { fileActionOutcome, filePathSchema, joinComponents, pathComponents, withWorkspaceFile } from '../../files/workspace'
import { pageBytes, readLinePage } from './line-page'

export { pageBytes, readLinePage, utf8Boundary, type LinePage } from './line-page'

/**
 * The input of `read_file`. Pages are by lines, because that is how the other tools speak
 * (`search_files` reports line numbers, `edit_file` diffs count lines): `offset` is the first line
 * (1-based), `limit` the most lines; a page also stops at 256 KiB.
 */
export const readFileInputSchema = z
  .object({
    path: filePathSchema,
    offset: z.number().int().min(1).optional().describe('The first line to return, 1-based (default 1). A search_files match line can be given here.'),
    limit: z.number().int().min(1).optional().describe('The most lines to return (default: as many as fit in a 256 KiB page).')
  })
  .strict()

/** What `read_file` returns: the page's text, the file's size, and whether the file goes on after the page. */
export type ReadFileData = { path: string; content: string; totalBytes: number; truncated: boolean }

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
const lenientUtf8 = new TextDecoder('utf-8', { ignoreBOM: true })

/**
 * `read_file` (SPEC §5.3): one page of a text file of the workspace, verbatim (line ends kept). The
 * next page's offset is in `meta.page.nextOffset` and in a diagnostic. Only regular files with a
 * single link are read (no FIFOs or devices, no hard links that may be files outside), a link only
 * when it stays inside the workspace, and never anything under `.airlock/`. Bytes that are not
 * UTF-8 come back as U+FFFD, and the diagnostics say so.
 */
export const readFileAction: ActionSpec<typeof readFileInputSchema> = {
  name: 'read_file',
  description:
    'Read a text file of your workspace. Large files come in pages of at most 256 KiB: offset is the first line (1-based), limit the most lines. truncated says the file goes on; the diagnostics give the next offset.',
  inputSchema: readFileInputSchema,
  effects: 'read',
  summarize: (input) => `read_file ${input.path}${input.offset ? ` from line ${input.offset}` : ''}`,
  executor: {
    execute: ({ input, agent, signal }) =>
      fileActionOutcome(async () => {
        const components = pathComponents(input.path, 'file')
        return withWorkspaceFile(agent.workspace, components, async (file) => {
          const offset = input.offset ?? 1
          const page = await readLinePage(file.fd, file.stat.size, offset, input.limit, signal)
          const diagnostics: string[] = []
          let content: string
          try {
            content = strictUtf8.decode(page.bytes)
          } catch {
            content = lenientUtf8.decode(page.bytes)
            diagnostics.push('the file is not valid UTF-8 text (binary?): bytes that are not UTF-8 are shown as U+FFFD')
          }
          if (page.bytes.includes(0)) diagnostics.push('the file contains NUL bytes: it is probably binary')
          if (page.fileLines !== undefined)
            diagnostics.push(`the file has ${page.fileLines} line${page.fileLines === 1 ? '' : 's'}; offset ${offset} is past its end`)
          if (page.longLine) diagnostics.push(`line ${offset} is longer than a page (${pageBytes} bytes); only its start is shown`)
          if (page.nextOffset !== undefined)
            diagnostics.push(`lines ${offset}-${offset + page.lines - 1} shown; the file goes on: read again with offset ${page.nextOffset}`)
          const path = joinComponents(components)
          return {
            data: { path, content, totalBytes: file.stat.size, truncated: page.truncated } satisfies ReadFileData,
            meta: { page: { offset, lines: page.lines, ...(page.nextOffset !== undefined ? { nextOffset: page.nextOffset } : {}) } },
            diagnostics
          }
        })
      }, signal)
  }
}
