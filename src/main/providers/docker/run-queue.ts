/**
 * Runs jobs one at a time, in order of arrival (one run per container: a run's clean-up ends
 * every process of the run user, which must never hit another run). A job whose signal aborts
 * while it waits does not start; its `cancelled` answer is returned instead.
 */
export class RunQueue {
  private tail: Promise<void> = Promise.resolve()

  /** Waits for the runs before this one, then runs `job`; gives `cancelled()` if `signal` aborts first. */
  async exclusive<T>(signal: AbortSignal, cancelled: () => T, job: () => Promise<T>): Promise<T> {
    const previous = this.tail
    let done!: () => void
    const mine = new Promise<void>((resolve) => (done = resolve))
    // The next job waits for this one and, through it, for every one before.
    this.tail = previous.then(() => mine)
    try {
      const turn = await Promise.race([previous.then(() => true), aborted(signal).then(() => false)])
      if (!turn || signal.aborted) return cancelled()
      return await job()
    } finally {
      done()
    }
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
}
