import { AirlockError } from '@shared/errors'

/** Why the store could not be opened or used; `code` is stable, the message says what to do. */
export type StoreErrorCode = 'store.corrupt' | 'store.too_new' | 'store.locked' | 'store.unavailable'

/** A failure of the SQLite store, with a message an operator can act on. */
export class StoreError extends AirlockError<StoreErrorCode> {
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, {}, options)
  }
}
