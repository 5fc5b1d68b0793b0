import { z } from 'zod'
import { firstHiddenCharacter } from '@shared/visible-text'
import { WorkspaceFileError } from './workspace-file-error'

/**
 * The hard limits of the file actions (SPEC §6.2), whatever the configuration: a path's length and
 * a name's (Linux's PATH_MAX and NAME_MAX, in UTF-8 bytes), and the most a file action writes or
 * edits in one call (16 MiB, the per-file limit of code bundles, SPEC §5.2).
 */
export const workspaceLimits = {
  maxPathBytes: 4096,
  maxComponentBytes: 255,
  maxFileBytes: 16 * 1024 * 1024
} as const

/** With the `u` flag a surrogate pair is one code point, so this matches only an unpaired half. */
const loneSurrogate = /\p{Surrogate}/u

/** Whether a path may name the workspace itself (`.`, ``): a directory operand may, a file operand may not. */
export type PathOperand = 'file' | 'directory'

/**
 * What is wrong with a workspace path, or undefined when it is acceptable. Paths are relative to
 * the agent's workspace, `/`-separated, and never normalised (Linux names are bytes: an NFC
 * rewrite would miss an existing file). `.` and empty components are dropped; `..` is refused
 * outright rather than resolved, so a path never names anything above where it is written.
 */
export function pathProblem(path: string, operand: PathOperand): string | undefined {
  if (path.includes('\0')) return 'contains a NUL character'
  // A name the operator reads must show what it is: a newline forged `+++ b/README.md` headers in
  // the approval diff, U+202E turns `gpj.exe` into what reads as `exe.jpg` (see visible-text).
  const hidden = firstHiddenCharacter(path)
  if (hidden) return `contains the control character U+${hidden.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}; names must read as what they are`
  if (loneSurrogate.test(path)) return 'is not valid Unicode (it has a lone surrogate, so it cannot be a UTF-8 name)'
  const bytes = Buffer.byteLength(path, 'utf8')
  if (bytes > workspaceLimits.maxPathBytes) return `is ${bytes} bytes long; the limit is ${workspaceLimits.maxPathBytes}`
  if (path.startsWith('/')) return 'must be relative to the workspace (absolute paths are refused)'
  if (path.includes('\\')) return 'contains a backslash; separate folders with /'
  const parts = path.split('/')
  if (parts.includes('..')) return 'must not contain .. components (paths stay inside the workspace)'
  for (const part of parts) {
    const length = Buffer.byteLength(part, 'utf8')
    if (length > workspaceLimits.maxComponentBytes) return `has a name of ${length} bytes; the limit is ${workspaceLimits.maxComponentBytes}`
  }
  const named = parts.filter((part) => part !== '' && part !== '.')
  if (operand === 'file' && named.length === 0) return 'must name a file, not the workspace itself'
  if (operand === 'file' && (parts.at(-1) === '' || parts.at(-1) === '.')) return 'ends with / or /. and so names a folder; name a file'
  return undefined
}

/** The components of an acceptable path (throws `workspace_file.invalid_path` otherwise). */
export function pathComponents(path: string, operand: PathOperand): string[] {
  const problem = pathProblem(path, operand)
  if (problem) throw new WorkspaceFileError('invalid_path', `The path ${JSON.stringify(path.slice(0, 200))} ${problem}.`, { rule: problem })
  return path.split('/').filter((part) => part !== '' && part !== '.')
}

function pathSchema(operand: PathOperand) {
  return z.string().superRefine((path, context) => {
    const problem = pathProblem(path, operand)
    if (problem) context.addIssue({ code: 'custom', message: problem })
  })
}

/** The zod schema of a file operand: a relative path inside the workspace that names a file. */
export const filePathSchema = pathSchema('file').describe('A file path relative to the workspace, with / between folders (no absolute paths, no ..).')

/** The zod schema of a directory operand: like a file path, and `.` names the workspace itself. */
export const directoryPathSchema = pathSchema('directory').describe('A folder path relative to the workspace (. for the workspace itself).')

/** The zod schema of file content: text, at most `workspaceLimits.maxFileBytes` once encoded as UTF-8. */
export const fileContentSchema = z.string().superRefine((content, context) => {
  // A string of n UTF-16 units is at most 3n UTF-8 bytes: count only when it could be over.
  if (content.length * 3 <= workspaceLimits.maxFileBytes) return
  const bytes = Buffer.byteLength(content, 'utf8')
  if (bytes > workspaceLimits.maxFileBytes)
    context.addIssue({ code: 'custom', message: `is ${bytes} bytes; the limit is ${workspaceLimits.maxFileBytes} (16 MiB)` })
})

/** A path's components joined back: how results name a file (no `./`, no doubled slashes). */
export function joinComponents(components: readonly string[]): string {
  return components.length === 0 ? '.' : components.join('/')
}
