import { AirlockError } from '@shared/errors'

/** The codes of run-level refusals and failures in the provider layer. */
export type ProviderErrorCode =
  | 'workspace_boundary'
  | 'runner_released'
  | 'invalid_program'
  | 'invalid_environment'
  | 'cgroup_unavailable'
  | 'host_tool_missing'
  | 'upstream_unavailable'
  | 'network_refused'

/**
 * The provider layer's error (STYLE: one typed error per layer): a stable `code` for machines and
 * a message for people. Provider starts that the core's contract names (docker_unavailable, ...)
 * throw the core's `ExecutionResourceError` instead.
 */
export class ProviderError extends AirlockError<`provider.${ProviderErrorCode}`> {
  constructor(
    readonly reason: ProviderErrorCode,
    message: string,
    options?: { cause?: unknown }
  ) {
    super(`provider.${reason}`, message, {}, options)
  }
}
