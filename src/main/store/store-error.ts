/** Why the store could not be opened or used; `code` is stable, the message says what to do. */
export type StoreErrorCode = 'store_corrupt' | 'store_too_new' | 'store_locked' | 'store_unavailable'

/** A failure of the SQLite store, with a message an operator can act on. */
export class StoreError extends Error {
  override readonly name = 'StoreError'
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown }
  ) {
    super(message, options)
  }
}
