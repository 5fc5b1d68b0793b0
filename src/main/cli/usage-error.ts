/** Bad command-line usage: exit code 2 and one line on stderr. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
  readonly code = 'usage'
}
