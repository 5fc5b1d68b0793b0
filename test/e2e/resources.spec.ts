import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { ScratchDirectoryProvider, type ScratchDirectory } from '../../examples/scratch-directory-provider'
import { serve } from '../../src/main/serve'
import { makeTempDir } from '../support/temp-home'
import { expect, test } from './fixtures'

// The host runs in this process (a real host, store and web server) so the test can hold a real
// resource from the example provider and watch the console show and release it.
test('the Resources view shows a live handle, streams its events, and releases it', async ({ systemBrowser }) => {
  const home = makeTempDir('airlock-e2e-resources-')
  let logged = ''
  const running = await serve({ home: home.path, port: 0, gatewayPort: 0, rendererDir: resolve(__dirname, '../../out/renderer'), open: false, print: (line) => (logged = line.startsWith('Airlock console: ') ? line : logged) })
  try {
    const host = running.host
    host.resources.registerProvider(new ScratchDirectoryProvider())
    const page = await systemBrowser.newPage()
    await page.goto(`${logged.replace('Airlock console: ', '')}#/resources`)
    await expect(page.getByTestId('empty-resources')).toBeVisible()

    const handle = await host.resources.ensure({ kind: 'scratch_directory', scope: 'session', ownerId: 'session-42' })
    await host.resources.ensure({ kind: 'scratch_directory', scope: 'session', ownerId: 'session-42' })
    const row = page.getByTestId(`handle-${handle.handleId}`)
    await expect(row).toContainText('scratch_directory')
    await expect(row).toContainText('session-42')
    await expect(row).toContainText('ready')
    await expect(row.locator('td.numeric')).toHaveText('2')
    await expect(page.getByTestId('event-list')).toContainText('ready')
    await page.screenshot({ path: test.info().outputPath('resources-live.png'), fullPage: true })

    await page.getByTestId(`release-${handle.handleId}`).click()
    await expect(page.getByTestId('empty-resources')).toBeVisible()
    await expect(page.getByTestId('event-list').locator('li').first()).toContainText('released')
    expect(existsSync((handle.resource as ScratchDirectory).path)).toBe(false)
    await page.close()
  } finally {
    await running.stop()
    home.remove()
  }
})
