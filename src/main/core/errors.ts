import { AirlockError } from '@shared/errors'
/** The error codes of the execution-resource core (SPEC §3.1), without their prefix. */
export const executionResourceErrorCodes = [
  'provider_missing',
  'provider_unavailable',
  'release_failed',
  'approval_required',
  'approval_denied',
  'workspace_grant_required',
  'trusted_local_not_allowed',
  'trusted_local_snapshot_required',
  'docker_unavailable',
  'docker_image_missing',
  'docker_image_pull_approval_required',
  'docker_image_pull_failed',
  'bubblewrap_unavailable',
  // Not in the SPEC list: a requirement or provider that fails validation, an unknown id.
  'invalid_requirement',
  'invalid_provider',
  'requirement_unknown',
  // Misuse of the core API by its caller: a call in the wrong state, an unknown name or id.
  'invalid_state',
  'invalid_argument',
  // What landed in an execution area is not the bundle that was sent.
  'bundle_mismatch'
] as const

/** One code of `executionResourceErrorCodes`. */
export type ExecutionResourceErrorCode = (typeof executionResourceErrorCodes)[number]

/**
 * The error of the execution-resource layer: `code` is `execution_resource.<name>`, `data` is
 * JSON for machines (probe records, failures), the message is for people.
 */
export class ExecutionResourceError extends AirlockError<`execution_resource.${ExecutionResourceErrorCode}`> {
  constructor(code: ExecutionResourceErrorCode, message: string, payload: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(`execution_resource.${code}`, message, payload, options)
  }
}

/** A TCP port on 127.0.0.1 that is already taken (the web console's or the gateway's), reported with what to do. */
export class PortInUseError extends AirlockError<'host.port_in_use'> {
  constructor(message: string) {
    super('host.port_in_use', message)
  }
}
