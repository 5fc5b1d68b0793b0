import { AirlockError } from '@shared/errors'

/** Stable codes of the command line's own failures (`usage` exits 2, the others 1). */
export type CliErrorCode =
  | 'usage'
  | 'engine_unavailable'
  | 'image_unavailable'
  | 'not_found'
  | 'invalid_input'
  | 'chain_broken'
  | 'not_built'
  | 'conflict'
  | 'isolation_failed'

/** A failure the CLI reports itself as one line on stderr, with a stable code for scripts and tests. */
export class CliError extends AirlockError<`cli.${CliErrorCode}`> {
  constructor(code: CliErrorCode, message: string, options?: { cause?: unknown }) {
    super(`cli.${code}`, message, {}, options)
  }
}

/** Bad command-line usage: exit code 2 and one line on stderr. */
export class UsageError extends CliError {
  constructor(message: string) {
    super('usage', message)
  }
}
