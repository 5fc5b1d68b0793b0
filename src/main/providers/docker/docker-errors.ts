import { AirlockError } from '@shared/errors'

/** The docker provider's own error codes (the core's `ExecutionResourceError` covers engine and image availability). */
export type DockerProviderErrorCode =
  | 'docker.extra_args_refused'
  | 'docker.provisioning_failed'
  | 'docker.workspace_refused'
  | 'docker.mount_mismatch'
  | 'docker.runner_released'
  | 'docker.grant_unsupported'
  | 'docker.invalid_run'
  | 'docker.container_unresponsive'
  | 'docker.copy_failed'
  | 'docker.copy_refused'
  | 'docker.remote_unsupported'
  | 'docker.egress_unavailable'

/**
 * An error of the docker provider with a stable `code` and a JSON `data` for machines; the
 * message says what happened and what to do.
 */
export class DockerProviderError extends AirlockError<DockerProviderErrorCode> {}
