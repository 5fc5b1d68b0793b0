/**
 * Wraps a refresh so bursts of change events coalesce: while one run is in flight, any number of
 * further calls become one more run after it (never a run per event, never a missed last change).
 * Every caller gets the promise of the run in flight.
 */
export function coalescedRefresh(run: () => Promise<void>): () => Promise<void> {
  let inFlight: Promise<void> | undefined
  let again = false
  return () => {
    if (inFlight) {
      again = true
      return inFlight
    }
    inFlight = (async () => {
      do {
        again = false
        await run()
      } while (again)
    })().finally(() => (inFlight = undefined))
    return inFlight
  }
}
