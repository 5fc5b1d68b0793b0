import { callTool, connectAgent, startServeWithGateway } from '../support/mcp-gateway-client'
import { runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'
import { expect, test } from './fixtures'
import { screenshotBothThemes } from './look'

// A console that stays connected and current (issue 26): `airlock serve` restarted with the page
// open, the CLI changing the home while the page shows it. The real serve, the built console in
// Chromium, the real CLI and a real MCP client.

test('Settings › Make a new token: this tab reopens with it, another tab says its token changed, and the old URL is refused', async ({
  served,
  systemBrowser
}) => {
  const page = await (await systemBrowser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
  const other = await (await systemBrowser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
  await other.goto(`${served.url}#/agents`)
  await expect(other.getByTestId('view-agents')).toBeVisible()
  await page.goto(`${served.url}#/settings`)
  await page.getByTestId('setting-console-token-rotate').click()
  // This tab opened the new URL: its session is the new token's, and the address bar is clean again.
  await expect(page).toHaveURL(/#\/settings$/)
  await expect(page).not.toHaveURL(/token=/)
  await expect(page.getByTestId('setting-console-token')).toBeVisible({ timeout: 15_000 })
  await expect(page.getByTestId('banner-disconnected')).toBeHidden()
  // The other tab was let in with the old token: its connection ends and it says why.
  await expect(other.getByTestId('banner-disconnected')).toContainText('new console token', { timeout: 20_000 })
  expect((await fetch(served.url, { redirect: 'manual' })).status).toBe(401)
  await page.close()
  await other.close()
})

test('restart airlock serve with the page open: it reconnects by itself and shows what changed meanwhile and after; CLI changes reach an open view', async ({
  systemBrowser
}) => {
  test.setTimeout(180_000)
  const home = makeTempDir('airlock-e2e-reconnect-', { outsideTmp: true })
  let served = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home.path])
  const consoleUrl = served.consoleLine.replace('Airlock console: ', '')
  const gatewayUrl = served.gatewayLine.replace('Agent gateway: ', '')
  const ports = ['--port', new URL(consoleUrl).port, '--gateway-port', new URL(gatewayUrl).port]
  const page = await (await systemBrowser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
  let agent: Awaited<ReturnType<typeof connectAgent>> | undefined
  try {
    await page.goto(`${consoleUrl}#/agents`)
    // The printed URL's token leaves the address bar once the session cookie is set.
    await expect(page).not.toHaveURL(/token=/)
    expect(runAirlock(['agent', 'create', 'first', '--home', home.path]).code).toBe(0)
    // Made by another process while the page is open: it appears without a reload.
    await expect(page.getByTestId('agent-row-first')).toBeVisible({ timeout: 10_000 })

    await served.stop()
    const banner = page.getByTestId('banner-disconnected')
    await expect(banner).toBeVisible({ timeout: 15_000 })
    await expect(banner).toContainText('Reconnecting')
    // During the outage the CLI makes an agent.
    const created = runAirlock(['agent', 'create', 'during', '--json', '--home', home.path])
    expect(created.code, created.stderr).toBe(0)
    const { token } = JSON.parse(created.stdout) as { token: string }

    served = await startServeWithGateway([...ports, '--home', home.path])
    await expect(banner).toBeHidden({ timeout: 20_000 })
    await expect(page.getByTestId('agent-row-during')).toBeVisible({ timeout: 10_000 })

    // An approval queued after the restart reaches the queue without a reload.
    agent = await connectAgent(gatewayUrl, token)
    const pending = callTool(agent.client, 'run_command', { command: 'rm -rf old-build' }, { timeout: 120_000 }).catch(() => undefined)
    await page.getByTestId('nav-approvals').click()
    await expect(page.locator('[data-testid^="approval-item-"]')).toHaveCount(1, { timeout: 15_000 })
    await screenshotBothThemes(page, test.info(), 'reconnected-approval')
    await agent.close()
    agent = undefined
    await pending
  } finally {
    await agent?.close().catch(() => undefined)
    await page.close()
    await served.stop()
    home.remove()
  }
})
