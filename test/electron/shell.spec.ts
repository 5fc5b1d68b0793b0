import { _electron as electron, expect, test } from '@playwright/test'
import { resolve } from 'node:path'
import { airlockContract } from '../../src/shared/ipc'
import { findElectron, skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

// The Electron binary cannot be downloaded on every machine (see README); where it is absent
// these tests report "not available on this machine" with the reason.
const skipReason = skipReasonFor('Electron', findElectron(), { exempt: true })

test('the desktop window opens and exposes only the contract as window.airlock', async () => {
  test.skip(skipReason !== undefined, skipReason)
  const home = makeTempDir('airlock-electron-')
  const app = await electron.launch({
    args: [resolve(__dirname, '../../out/main/index.js')],
    env: { ...process.env, AIRLOCK_HOME: home.path }
  })
  try {
    const page = await app.firstWindow()
    await expect(page.getByTestId('view-agents')).toBeVisible()
    const exposed = await page.evaluate(() => {
      const airlock = (globalThis as { airlock?: Record<string, Record<string, unknown>> }).airlock ?? {}
      return {
        namespaces: Object.keys(airlock).sort(),
        methods: Object.fromEntries(Object.entries(airlock).map(([ns, api]) => [ns, Object.keys(api).sort()])),
        requireType: typeof (globalThis as { require?: unknown }).require,
        processType: typeof (globalThis as { process?: unknown }).process
      }
    })
    const expected = Object.fromEntries(
      Object.entries(airlockContract).map(([ns, spec]) => [
        ns,
        [...Object.keys(spec.calls), ...Object.keys(spec.events).map((e) => `on${e[0]!.toUpperCase()}${e.slice(1)}`)].sort()
      ])
    )
    expect(exposed.namespaces).toEqual(Object.keys(airlockContract).sort())
    expect(exposed.methods).toEqual(expected)
    expect(exposed.requireType).toBe('undefined')
    expect(exposed.processType).toBe('undefined')
    await expect(page.getByTestId('system-footer')).toContainText('desktop')
  } finally {
    await app.close()
    home.remove()
  }
})
