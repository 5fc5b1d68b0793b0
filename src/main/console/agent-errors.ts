import { AirlockError } from '@shared/errors'

/** Stable codes of the agent and role services' refusals. */
export type AgentErrorCode =
  | 'agent.invalid_id'
  | 'agent.invalid_name'
  | 'agent.invalid_profile'
  | 'agent.exists'
  | 'agent.not_found'
  | 'agent.exceeds_role'
  | 'agent.profile_corrupt'
  | 'agent.workspace_unavailable'
  | 'role.invalid'
  | 'role.not_found'
  | 'role.in_use'

/**
 * A refusal of the agent or role service: `code` is stable (the IPC result and the CLI use it),
 * the message names the bad field, `data` holds the details for machines (never a secret).
 */
export class AgentError extends AirlockError<AgentErrorCode> {}
