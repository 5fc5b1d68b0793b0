/**
 * How long quitting waits for the host to release live resources (warm containers, sandboxes)
 * before it gives up: long enough for a normal release, short enough that a stuck provider
 * cannot hang quit forever.
 */
export const hostDisposeTimeoutMs = 10_000

/** How a bounded wait ended; `failed` carries the error so the caller can log it. */
export type Settled = { status: 'done' } | { status: 'failed'; error: unknown } | { status: 'timed_out' }

/** Waits for `work` at most `ms` milliseconds and says how it ended; never throws. */
export async function settleWithin(work: Promise<unknown>, ms: number): Promise<Settled> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timedOut = new Promise<Settled>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'timed_out' }), ms)
  })
  try {
    return await Promise.race([
      work.then(
        (): Settled => ({ status: 'done' }),
        (error: unknown): Settled => ({ status: 'failed', error })
      ),
      timedOut
    ])
  } finally {
    clearTimeout(timer)
  }
}

/** The part of Electron's `app` that quitting needs (a boundary the tests stand in for). */
export type QuittableApp = {
  on(event: 'will-quit', listener: (event: { preventDefault(): void }) => void): unknown
  quit(): void
}

/** What holding quit needs: the work to finish first, its bound, and where a problem is told. */
export type HoldQuitOptions = {
  dispose: () => Promise<void>
  timeoutMs?: number
  log: (message: string, error?: unknown) => void
}

/**
 * Electron does not await `will-quit` listeners, so a plain `void host.dispose()` lets warm
 * containers outlive the app. This prevents the first quit, awaits `dispose` (bounded), then
 * quits for real; quits asked for meanwhile are held without starting a second dispose.
 */
export function holdQuitUntilDisposed(app: QuittableApp, options: HoldQuitOptions): void {
  let state: 'running' | 'disposing' | 'disposed' = 'running'
  const timeoutMs = options.timeoutMs ?? hostDisposeTimeoutMs
  app.on('will-quit', (event) => {
    if (state === 'disposed') return
    event.preventDefault()
    if (state === 'disposing') return
    state = 'disposing'
    void (async () => {
      let settled: Settled
      try {
        settled = await settleWithin(options.dispose(), timeoutMs)
      } catch (error) {
        // dispose() threw before returning its promise: still quit.
        settled = { status: 'failed', error }
      }
      if (settled.status === 'timed_out') options.log(`Airlock: quitting before resources were released (waited ${timeoutMs / 1000} s)`)
      if (settled.status === 'failed') options.log('Airlock: releasing resources at quit failed', settled.error)
      state = 'disposed'
      app.quit()
    })()
  })
}
