import { AirlockError } from '@shared/errors'
import type { ActionOutcome } from '../../core/action-runtime'
import { fileActionOutcome } from '../workspace'

/** Why a skill action refused; each is a stable code `skill.<reason>`. */
export type SkillRefusal = 'not_found' | 'invalid_files' | 'unsafe_file' | 'too_large' | 'invalid_manifest' | 'not_approved' | 'rejected'

/**
 * A refusal of `persist_skill` or `run_skill`: `code` is `skill.<reason>`, the message says what
 * to do, `data` is JSON for machines (the path, the revision that waits...).
 */
export class SkillError extends AirlockError<`skill.${SkillRefusal}`> {
  constructor(
    readonly reason: SkillRefusal,
    message: string,
    data: Record<string, unknown> = {}
  ) {
    super(`skill.${reason}`, message, data)
  }
}

/**
 * A skill refusal as an action outcome: `blocked`, with the deciding rule `skill.<reason>` in
 * `meta.policy` (SPEC §5.3) and the payload as `meta.skill`; a missing skill is an ordinary `error`.
 */
export function skillRefusalOutcome(error: SkillError): ActionOutcome {
  const failure = { code: error.code, message: error.message }
  if (error.reason === 'not_found') return { status: 'error', error: failure, meta: { skill: error.data } }
  return { status: 'blocked', error: failure, meta: { policy: { decision: 'deny', rule: error.code, reason: error.message }, skill: error.data } }
}

/** Runs a skill action: a skill refusal becomes its outcome, a workspace refusal that of the file actions (cancellation re-thrown). */
export function skillActionOutcome(run: () => Promise<ActionOutcome>, signal?: AbortSignal): Promise<ActionOutcome> {
  return fileActionOutcome(async () => {
    try {
      return await run()
    } catch (error) {
      if (error instanceof SkillError && !signal?.aborted) return skillRefusalOutcome(error)
      throw error
    }
  }, signal)
}
