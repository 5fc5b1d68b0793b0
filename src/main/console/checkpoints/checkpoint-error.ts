import { AirlockError } from '@shared/errors'

/** Stable codes of the checkpoint service's refusals. */
export type CheckpointErrorCode =
  | 'checkpoint.not_found'
  | 'checkpoint.pruned'
  | 'checkpoint.conflict'
  | 'checkpoint.not_kept'
  | 'checkpoint.partly_applied'
  | 'checkpoint.agent_gone'
  | 'checkpoint.unavailable'
  | 'checkpoint.not_recoverable'

/** A refusal of a revert, restore or diff: the message names the files; `data.files` lists them for machines. */
export class CheckpointError extends AirlockError<CheckpointErrorCode> {}
