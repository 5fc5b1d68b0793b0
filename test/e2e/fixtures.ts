import { test as base, chromium, type Browser } from '@playwright/test'
import { findChromium, skipReasonFor } from '../support/components'
import { startServe } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

const chromiumCheck = findChromium()

/** Launch flags that work for the system Chromium on a headless, offline machine. */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]

type Fixtures = {
  /** A running `airlock serve` on a fresh home, with its printed URL. */
  served: { url: string; port: number; token: string; home: string }
  systemBrowser: Browser
}

/** Playwright test with a served console and the system Chromium. */
export const test = base.extend<Fixtures>({
  // eslint-disable-next-line no-empty-pattern
  served: async ({}, use) => {
    const home = makeTempDir('airlock-e2e-', { outsideTmp: true })
    const served = await startServe(['--port', '0', '--gateway-port', '0', '--home', home.path])
    const url = served.firstLine.replace('Airlock console: ', '')
    const parsed = new URL(url)
    await use({ url, port: Number(parsed.port), token: parsed.searchParams.get('token')!, home: home.path })
    await served.stop()
    home.remove()
  },
  // eslint-disable-next-line no-empty-pattern
  systemBrowser: async ({}, use, testInfo) => {
    const reason = skipReasonFor('Chromium', chromiumCheck)
    testInfo.skip(reason !== undefined, reason)
    const browser = await chromium.launch({
      executablePath: chromiumCheck.path,
      headless: true,
      args: [...chromiumArgs, '--host-resolver-rules=MAP rebind.test 127.0.0.1']
    })
    await use(browser)
    await browser.close()
  }
})

export { expect } from '@playwright/test'
