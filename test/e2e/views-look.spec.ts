import { callTool, connectAgent, startServeWithGateway } from '../support/mcp-gateway-client'
import { runAirlockAsync } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'
import { expect, test } from './fixtures'
import { expectNoSeriousA11yViolations, screenshotBothThemes, setTheme } from './look'

// Every view with real content (an agent, finished calls, a pending approval, a live session
// resource), at the narrowest and a wide supported width, in both themes: screenshots under
// test-results/ for a person to look at, and axe-core on each (no serious or critical findings).

const views = ['agents', 'approvals', 'history', 'providers', 'resources', 'settings'] as const

test('every view, populated, in light and dark at 1024 and 1920 px passes axe', async ({ systemBrowser }) => {
  test.setTimeout(240_000)
  const home = makeTempDir('airlock-e2e-look-', { outsideTmp: true })
  const served = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home.path])
  const consoleUrl = served.consoleLine.replace('Airlock console: ', '')
  const gatewayUrl = served.gatewayLine.replace('Agent gateway: ', '')
  const created = await runAirlockAsync(['agent', 'create', 'researcher', '--json', '--home', home.path])
  expect(created.code, created.stderr).toBe(0)
  const token = (JSON.parse(created.stdout) as { token: string }).token
  const agent = await connectAgent(gatewayUrl, token)
  try {
    await callTool(agent.client, 'write_file', { path: 'notes/plan.md', content: '# Plan\n\n- read the data\n- write the report\n' })
    await callTool(agent.client, 'run_command', { command: "printf '\\033[32mok\\033[0m tests passed\\n'" })
    await callTool(agent.client, 'run_command', { command: 'cat missing.txt' })
    const asking = callTool(agent.client, 'run_command', { command: 'rm -rf notes/old' }, { timeout: 200_000 }).catch(() => undefined)

    for (const width of [1024, 1920]) {
      const page = await (await systemBrowser.newContext({ viewport: { width, height: 900 } })).newPage()
      for (const view of views) {
        await page.goto(`${consoleUrl}#/${view}`)
        await expect(page.getByTestId(`view-${view}`)).toBeVisible()
        if (view === 'approvals') await expect(page.locator('[data-testid^="approval-item-"]')).toHaveCount(1, { timeout: 15_000 })
        if (view === 'history') await expect(page.locator('[data-testid^="history-row-"]').first()).toBeVisible()
        await page.waitForLoadState('networkidle')
        for (const theme of ['dark', 'light'] as const) {
          await setTheme(page, theme)
          await expectNoSeriousA11yViolations(page, `${view} (${theme}, ${width} px)`)
        }
        await screenshotBothThemes(page, test.info(), `view-${view}-${width}`)
      }
      await page.close()
    }
    void asking
  } finally {
    await agent.close().catch(() => undefined)
    await served.stop()
    home.remove()
  }
})
