import { z } from 'zod'

/** The error half of every call result: a stable machine `code` and a message for people. */
export const appErrorSchema = z.object({ code: z.string(), message: z.string() })

/** An error as it crosses a process boundary (IPC, WebSocket, CLI --json). */
export type AppError = z.infer<typeof appErrorSchema>

/** What every contract call returns: nothing is thrown across a boundary. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: AppError }

/** Wraps a value as a successful result. */
export function ok<T>(value: T): Result<T> {
  return { ok: true, value }
}

/** Builds a failed result from a code and a message. */
export function fail<T = never>(code: string, message: string): Result<T> {
  return { ok: false, error: { code, message } }
}

/** Error codes produced by the contract layer itself (services add their own). */
export const contractErrorCodes = {
  validation: 'validation_failed',
  unknownCall: 'unknown_call',
  forbidden: 'forbidden_sender',
  internal: 'internal_error',
  disconnected: 'disconnected'
} as const
