import { AirlockError } from '@shared/errors'
import type { ActionOutcome } from '../../core/action-runtime'

/** Reasons that are a hard boundary (SPEC §6.2: an escape attempt or a limit): the call is `blocked`. */
const boundaryReasonList = [
  'invalid_path',
  'outside_workspace',
  'reserved_path',
  'hard_link',
  'symlink_loop',
  'changed_during_operation',
  'quota_exceeded',
  'too_large'
] as const

/** Why a file action refused or failed; each is a stable code `workspace_file.<reason>`. Past the boundaries, ordinary failures: the call ends in `error`. */
export const workspaceFileReasons = [
  ...boundaryReasonList,
  'not_found',
  'not_regular_file',
  'is_directory',
  'not_directory',
  'binary_file',
  'no_match',
  'ambiguous_match',
  'invalid_pattern',
  'workspace_unavailable',
  'io_error'
] as const

/** One reason of `workspaceFileReasons`. */
export type WorkspaceFileReason = (typeof workspaceFileReasons)[number]

const boundaryReasons: ReadonlySet<WorkspaceFileReason> = new Set(boundaryReasonList)

/**
 * The error of the workspace file actions: `code` is `workspace_file.<reason>`, `data` is JSON
 * for machines (counts, sizes, the path), the message says what was refused and why, for people.
 */
export class WorkspaceFileError extends AirlockError<`workspace_file.${WorkspaceFileReason}`> {
  constructor(
    readonly reason: WorkspaceFileReason,
    message: string,
    data: Record<string, unknown> = {}
  ) {
    super(`workspace_file.${reason}`, message, data)
  }
}

/** Filesystem errors a workspace can cause, in words an agent can act on. */
const ioReasons: Record<string, [WorkspaceFileReason, string]> = {
  ENOENT: ['not_found', 'does not exist'],
  EISDIR: ['is_directory', 'is a directory'],
  ENOTDIR: ['not_directory', 'has a component that is not a directory'],
  ELOOP: ['changed_during_operation', 'was replaced by a symbolic link while Airlock used it'],
  ENOSPC: ['io_error', 'no space left on the device'],
  EDQUOT: ['io_error', 'the disk quota of the device is exhausted'],
  EACCES: ['io_error', 'permission denied'],
  EPERM: ['io_error', 'operation not permitted'],
  ENAMETOOLONG: ['invalid_path', 'a name is too long'],
  EMLINK: ['io_error', 'too many links']
}

/** A `WorkspaceFileError` for any error a file operation threw (errno errors get a reason; ours pass through). */
export function asWorkspaceFileError(error: unknown, path?: string): WorkspaceFileError {
  if (error instanceof WorkspaceFileError) return error
  const errno = (error as NodeJS.ErrnoException)?.code
  const known = typeof errno === 'string' ? ioReasons[errno] : undefined
  const where = path === undefined ? '' : `${path}: `
  if (known) return new WorkspaceFileError(known[0], `${where}${known[1]}`, { errno, ...(path === undefined ? {} : { path }) })
  return new WorkspaceFileError('io_error', `${where}${error instanceof Error ? error.message : String(error)}`, { ...(errno ? { errno } : {}) })
}

/**
 * Runs a file action and turns a failure into its outcome: boundary refusals are `blocked` (the
 * deciding rule `workspace.<reason>` in `meta.policy`, as SPEC §5.3 asks of blocked calls), the rest `error`.
 * A failure of a cancelled call (`signal` aborted) is re-thrown for the dispatcher to report as cancelled.
 */
export async function fileActionOutcome(run: () => Promise<ActionOutcome>, signal?: AbortSignal): Promise<ActionOutcome> {
  try {
    return await run()
  } catch (thrown) {
    // A cancelled call is the dispatcher's to report (`cancelled`), not a file failure.
    if (signal?.aborted || (thrown as Error)?.name === 'AbortError') throw thrown
    const error = asWorkspaceFileError(thrown)
    const failure = { code: error.code, message: error.message }
    if (!boundaryReasons.has(error.reason)) return { status: 'error', error: failure, meta: { refusal: error.data } }
    return {
      status: 'blocked',
      error: failure,
      meta: { policy: { decision: 'deny', rule: `workspace.${error.reason}`, reason: error.message }, refusal: error.data }
    }
  }
}
