import { contractErrorCodes, type AppError, type Result } from '@shared/result'

/** A failed contract call, thrown by `unwrap`: its message for people, and the host's error with its code. */
export class AirlockCallError extends Error {
  constructor(readonly error: AppError) {
    super(error.message)
  }
}

/** Returns a call result's value, or throws its error (an `AirlockCallError` that keeps the code). */
export async function unwrap<T>(result: Promise<Result<T>>): Promise<T> {
  const settled = await result
  if (!settled.ok) throw new AirlockCallError(settled.error)
  return settled.value
}

/**
 * The error a store keeps of whatever its action caught: the host's error (code and message) for a
 * refused call, else `internal_error` with the message (a fault in the renderer itself).
 */
export function appErrorOf(caught: unknown): AppError {
  if (caught instanceof AirlockCallError) return caught.error
  return { code: contractErrorCodes.internal, message: caught instanceof Error ? caught.message : String(caught) }
}
