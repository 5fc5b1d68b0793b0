import type { AppError } from './result'

/**
 * The one error base of Airlock. `code` is namespaced by the layer that raises it
 * (`execution_resource.provider_missing`, `gateway.refused`, `cli.usage`); `message` is for
 * people; `data` is JSON for machines. Boundaries turn one into an `AppError` with `instanceof`,
 * never by reading the shape of an unknown object.
 */
export class AirlockError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly data: Record<string, unknown> = {},
    options?: { cause?: unknown }
  ) {
    super(message, options)
    this.name = new.target.name
  }

  /** The error as it crosses a process boundary (IPC, WebSocket, CLI --json, an agent's result). */
  toAppError(): AppError {
    return { code: this.code, message: this.message }
  }
}

/** An unknown thrown value as an `AppError`: an Airlock error keeps its code, anything else becomes `fallback`. */
export function asAppError(error: unknown, fallback: string): AppError {
  if (error instanceof AirlockError) return error.toAppError()
  return { code: fallback, message: error instanceof Error ? error.message : String(error) }
}
