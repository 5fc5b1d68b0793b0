import { AirlockError } from '@shared/errors'

/** Stable codes of the queue's and the rules' refusals (the IPC layer and the CLI pass them on). */
export type ApprovalErrorCode =
  | 'approval.not_found'
  | 'approval.not_revealable'
  | 'approval.already_decided'
  | 'approval.not_rememberable'
  | 'approval.invalid_decision'
  | 'rule.not_found'
  | 'rule.revoked'
  | 'session.not_found'
  | 'session.not_here'

/** A refusal of an operator's action on the queue or the rules: `code` is stable, the message names the item. */
export class ApprovalError extends AirlockError<ApprovalErrorCode> {}
