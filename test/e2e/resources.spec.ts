import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Page } from '@playwright/test'
import { ScratchDirectoryProvider, type ScratchDirectory } from '../../examples/scratch-directory-provider'
import { serve } from '../../src/main/app/serve'
import { makeTempDir } from '../support/temp-home'
import { expect, test } from './fixtures'
import { expectNoSeriousA11yViolations, screenshotBothThemes } from './look'

/** Both-theme screenshots without colour transitions caught half-way through the theme switch. */
async function shots(page: Page, name: string): Promise<void> {
  await page.addStyleTag({ content: '*, *::before, *::after { transition: none !important; animation: none !important; }' })
  await screenshotBothThemes(page, test.info(), name)
}

/** The event labels of the stream as shown, newest first. */
async function shownEvents(page: Page): Promise<string[]> {
  const list = page.getByTestId('resource-events-list')
  if ((await list.count()) === 0) return []
  return list.locator(':scope > li .badge').allTextContents()
}

// The host runs in this process (a real host, store and web server) so the test can hold real
// resources from the example provider and watch the console show, stream and release them.
test('the Resources view shows live handles, streams their events with filters and pause, and releases after confirmation', async ({ systemBrowser }) => {
  const home = makeTempDir('airlock-e2e-resources-', { outsideTmp: true })
  let logged = ''
  const running = await serve({
    home: home.path,
    port: 0,
    gatewayPort: 0,
    rendererDir: resolve(__dirname, '../../out/renderer'),
    open: false,
    print: (line) => (logged = line.startsWith('Airlock console: ') ? line : logged)
  })
  try {
    const host = running.host
    host.resources.registerProvider(new ScratchDirectoryProvider())
    const context = await systemBrowser.newContext({ viewport: { width: 1440, height: 950 } })
    const page = await context.newPage()
    await page.goto(`${logged.replace('Airlock console: ', '')}#/resources`)
    await expect(page.getByTestId('empty-resources')).toBeVisible()
    await expect(page.getByTestId('resource-events-empty')).toContainText('No resource events yet')
    await shots(page, 'resources-empty')

    // Live: a handle appears, and its reference count follows a second holder, without a reload.
    const handle = await host.resources.ensure({ kind: 'scratch_directory', scope: 'session', ownerId: 'session-42' })
    await host.resources.ensure({ kind: 'scratch_directory', scope: 'session', ownerId: 'session-42' })
    const other = await host.resources.ensure({ kind: 'scratch_directory', scope: 'agent', ownerId: 'agent-7' })
    const row = page.getByTestId(`resource-row-${handle.handleId}`)
    await expect(row).toContainText('scratch_directory')
    await expect(row).toContainText('session-42')
    await expect(page.getByTestId(`resource-status-${handle.handleId}`)).toHaveText('ready')
    await expect(page.getByTestId(`resource-refs-${handle.handleId}`)).toHaveText('2')
    await expect(page.getByTestId(`resource-row-${other.handleId}`)).toContainText('agent-7')
    await expect.poll(() => shownEvents(page)).toContain('ready')
    await expectNoSeriousA11yViolations(page, 'resources')
    await shots(page, 'resources-live')

    // Filters: by type prefix and by text, kept in the URL.
    await page.getByTestId('resource-events-type').selectOption('execution_resource.declared')
    await expect.poll(async () => (await shownEvents(page)).length).toBeGreaterThanOrEqual(2)
    expect(new Set(await shownEvents(page))).toEqual(new Set(['declared']))
    await page.getByTestId('resource-events-type').selectOption('')
    await page.getByTestId('resource-events-text').fill('agent-7')
    await expect.poll(async () => (await shownEvents(page)).length).toBeGreaterThan(0)
    for (const text of await page.getByTestId('resource-events-list').locator(':scope > li').allTextContents()) expect(text).toContain('agent-7')
    expect(page.url()).toContain('q=agent-7')
    await page.getByTestId('resource-events-text').fill('no-such-owner')
    await expect(page.getByTestId('resource-events-empty')).toContainText('No event matches these filters')
    await page.getByTestId('resource-events-text').fill('')
    expect(page.url()).not.toContain('q=')

    // Pause: new events wait aside (counted) and the list stands still until resumed.
    const before = await shownEvents(page)
    await page.getByTestId('resource-events-pause').click()
    await expect(page.getByTestId('resource-events-pause')).toHaveAttribute('aria-pressed', 'true')
    const third = await host.resources.ensure({ kind: 'scratch_directory', scope: 'request', ownerId: 'req-9' })
    await expect(page.getByTestId(`resource-row-${third.handleId}`)).toBeVisible()
    await expect(page.getByTestId('resource-events-pause')).toContainText(/Resume \(\d+ new\)/)
    expect(await shownEvents(page)).toEqual(before)
    await page.getByTestId('resource-events-pause').click()
    await expect.poll(async () => (await shownEvents(page)).length).toBeGreaterThan(before.length)

    // Release asks first and says who loses it; Cancel keeps it.
    await page.getByTestId(`resource-release-${handle.handleId}`).click()
    const dialog = page.getByTestId('dialog-release-confirm')
    await expect(dialog).toContainText('2 holders still reference it')
    await expect(dialog).toContainText('session session-42')
    await expectNoSeriousA11yViolations(page, 'resources: release confirmation')
    await shots(page, 'resources-release-dialog')
    await page.getByTestId('dialog-release-confirm-cancel').click()
    await expect(dialog).toBeHidden()
    await expect(row).toBeVisible()
    expect(existsSync((handle.resource as ScratchDirectory).path)).toBe(true)

    await page.getByTestId(`resource-release-${handle.handleId}`).click()
    await page.getByTestId('dialog-release-confirm-confirm').click()
    await expect(row).toBeHidden()
    await expect.poll(() => shownEvents(page)).toContain('released')
    expect((await shownEvents(page))[0]).toBe('released')
    expect(existsSync((handle.resource as ScratchDirectory).path)).toBe(false)
    expect(host.resources.list().some((h) => h.handleId === handle.handleId)).toBe(false)

    await page.setViewportSize({ width: 1024, height: 800 })
    await shots(page, 'resources-after-release-1024')
    await context.close()
  } finally {
    await running.stop()
    home.remove()
  }
})
