import { describe, expect, it } from 'vitest'
import { holdQuitUntilDisposed, settleWithin, type QuittableApp } from './shutdown'

/**
 * Electron's `app` is the boundary here: this stand-in fires `will-quit` the way Electron does
 * (each `quit()` fires it again; the app ends only if no listener prevented it).
 */
function electronLikeApp() {
  const listeners: ((event: { preventDefault(): void }) => void)[] = []
  const app = {
    quitCalls: 0,
    ended: false,
    on(_event: 'will-quit', listener: (event: { preventDefault(): void }) => void) {
      listeners.push(listener)
    },
    quit() {
      app.quitCalls++
      let prevented = false
      for (const listener of listeners) listener({ preventDefault: () => (prevented = true) })
      if (!prevented) app.ended = true
    }
  }
  return app satisfies QuittableApp
}

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms))

describe('quitting the desktop app waits for the host', () => {
  it('holds the first quit until dispose has finished, then quits for real', async () => {
    const app = electronLikeApp()
    let finishDispose = () => {}
    let disposeCalls = 0
    holdQuitUntilDisposed(app, {
      dispose: () => (disposeCalls++, new Promise<void>((resolve) => (finishDispose = resolve))),
      log: () => undefined
    })
    app.quit()
    await tick(20)
    expect(app.ended).toBe(false)
    app.quit() // a second quit while the host is disposing is held too, without a second dispose
    expect(app.ended).toBe(false)
    finishDispose()
    await tick()
    expect(app.ended).toBe(true)
    expect(disposeCalls).toBe(1)
    expect(app.quitCalls).toBe(3)
  })

  it('quits after the timeout when dispose hangs, and says so', async () => {
    const app = electronLikeApp()
    const logged: string[] = []
    holdQuitUntilDisposed(app, { dispose: () => new Promise<void>(() => undefined), timeoutMs: 100, log: (message) => logged.push(message) })
    const started = Date.now()
    app.quit()
    await tick(50)
    expect(app.ended).toBe(false)
    await expect.poll(() => app.ended, { timeout: 1000, interval: 10 }).toBe(true)
    expect(Date.now() - started).toBeGreaterThanOrEqual(95)
    expect(logged).toEqual(['Airlock: quitting before resources were released (waited 0.1 s)'])
  })

  it('quits when dispose fails (rejects or throws), logging the error', async () => {
    for (const dispose of [
      () => Promise.reject(new Error('docker gone')),
      () => {
        throw new Error('docker gone')
      }
    ]) {
      const app = electronLikeApp()
      const logged: [string, unknown][] = []
      holdQuitUntilDisposed(app, { dispose, log: (message, error) => logged.push([message, error]) })
      app.quit()
      await expect.poll(() => app.ended, { timeout: 1000, interval: 10 }).toBe(true)
      expect(logged).toEqual([['Airlock: releasing resources at quit failed', new Error('docker gone')]])
    }
  })
})

describe('settleWithin', () => {
  it('says done, failed (with the error) or timed_out, and never throws', async () => {
    await expect(settleWithin(Promise.resolve(1), 1000)).resolves.toEqual({ status: 'done' })
    const error = new Error('no')
    await expect(settleWithin(Promise.reject(error), 1000)).resolves.toEqual({ status: 'failed', error })
    await expect(settleWithin(new Promise(() => undefined), 30)).resolves.toEqual({ status: 'timed_out' })
  })
})
