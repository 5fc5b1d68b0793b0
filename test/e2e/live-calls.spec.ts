import type { Page } from '@playwright/test'
import { callTool, connectAgent, type GatewayToolResult } from '../support/mcp-gateway-client'
import { serveWithAgents } from '../support/serve-with-agents'
import { expect, test } from './fixtures'
import { expectNoSeriousA11yViolations, screenshotBothThemes, setTheme } from './look'

// Watching work as it happens (issue 27), against the real product: `airlock serve`, a real MCP
// SDK client as the agent, commands in real bubblewrap sandboxes, the built console in Chromium.

const rows = (page: Page) => page.locator('[data-testid^="history-row-"]')
/** A call still running when a test fails is dropped by closing its client: that must not surface as an unhandled rejection. */
const settled = <T>(call: Promise<T>): Promise<T> => {
  call.catch(() => undefined)
  return call
}

test('a running command streams its lines to the History drawer, escapes and all, and Cancel ends it: the agent gets cancelled', async ({ systemBrowser }) => {
  test.setTimeout(180_000)
  const served = await serveWithAgents('airlock-e2e-live-', { coder: { capabilities: ['files', 'shell'], ask: 'never' } })
  const coder = await connectAgent(served.gatewayUrl, served.tokens.coder!)
  const page = await (await systemBrowser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  try {
    await page.goto(`${served.consoleUrl}#/history`)
    await expect(page.getByRole('heading', { name: 'History', level: 1 })).toBeVisible()
    const title = await page.title()
    // One line a second for 20 s; the second line tries to retitle the window, hyperlink, and reverse what follows it.
    const command = `echo "line 1"; printf '\\033]0;PWNED\\007\\033]8;;https://evil.example/\\007click\\033]8;;\\007 \\342\\200\\256dne\\n'; for i in $(seq 2 20); do echo "line $i"; sleep 1; done`
    const running = settled(callTool(coder.client, 'run_command', { command }, { timeout: 120_000 }))
    await expect(rows(page)).toHaveCount(1, { timeout: 15_000 })
    await rows(page).first().click()
    await expect(page.getByTestId('history-detail-status')).toHaveText('running')
    const lines = page.getByTestId('history-live-line')
    await expect(lines.filter({ hasText: 'line 6' })).toHaveCount(1, { timeout: 20_000 })
    expect(await lines.count()).toBeGreaterThanOrEqual(5)
    await expect(page.getByTestId('history-live-lines')).toContainText('\\u202e')
    await expect(page.getByTestId('history-live-lines').locator('a')).toHaveCount(0)
    expect(await page.title()).toBe(title)
    // The agent's recent calls show the running call's latest line too.
    const callId = (await rows(page).first().getAttribute('data-testid'))!.replace('history-row-', '')
    const agentsPage = await page.context().newPage()
    await agentsPage.goto(`${served.consoleUrl}#/agents?agent=coder`)
    await expect(agentsPage.getByTestId(`agent-call-live-${callId}`)).toContainText(/^line \d+$/, { timeout: 15_000 })
    await agentsPage.close()
    await expectNoSeriousA11yViolations(page, 'history drawer, live output')
    await screenshotBothThemes(page, test.info(), 'history-live-output')
    await setTheme(page, 'dark')

    await page.getByTestId('history-live-cancel').click()
    // Ended long before its 20 s: the drawer shows the record, and the agent's client has its result.
    await expect(page.getByTestId('history-detail-status')).toHaveText('cancelled', { timeout: 5_000 })
    const result: GatewayToolResult = await running
    expect(result.structuredContent).toMatchObject({
      ok: false,
      status: 'cancelled',
      error: { code: 'cancelled', message: expect.stringMatching(/operator cancelled/) }
    })
    await expect(page.getByTestId('history-detail-error')).toContainText('operator cancelled')
    await expect(page.getByTestId('history-stdout')).toContainText('line 5')
    await expect(page.getByTestId('history-stdout')).not.toContainText('line 20')
  } finally {
    await coder.close()
    await page.close()
    await served.stop()
  }
})

test('a call waiting for approval shows as waiting with a live wait time; once approved its run time excludes the wait', async ({ systemBrowser }) => {
  test.setTimeout(180_000)
  const served = await serveWithAgents('airlock-e2e-live-', { careful: { capabilities: ['files', 'shell'], ask: 'always' } })
  const careful = await connectAgent(served.gatewayUrl, served.tokens.careful!)
  const page = await (await systemBrowser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  try {
    await page.goto(`${served.consoleUrl}#/history`)
    await expect(page.getByRole('heading', { name: 'History', level: 1 })).toBeVisible()
    const asked = settled(callTool(careful.client, 'run_command', { command: 'echo approved-and-ran' }, { timeout: 120_000 }))
    await expect(rows(page)).toHaveCount(1, { timeout: 15_000 })
    const id = (await rows(page).first().getAttribute('data-testid'))!.replace('history-row-', '')
    await expect(page.getByTestId(`history-status-${id}`)).toHaveText('waiting')
    const wait = page.getByTestId(`history-duration-${id}`)
    await expect(wait).toContainText('waiting')
    const first = await wait.textContent()
    await expect(wait).not.toHaveText(first!, { timeout: 5_000 })
    // The status filter has it as its own state.
    await page.getByTestId('history-filter-status').selectOption('waiting_approval')
    await expect(rows(page)).toHaveCount(1)
    await rows(page).first().click()
    await expect(page.getByTestId('history-live-state')).toContainText('Waiting for your approval')
    await expect(page.getByTestId('history-detail-policy')).not.toContainText('No policy decision was recorded')
    await expectNoSeriousA11yViolations(page, 'history drawer, waiting call')
    await screenshotBothThemes(page, test.info(), 'history-waiting')
    await page.keyboard.press('Escape')

    // Decided after a few seconds of waiting.
    await page.waitForTimeout(2_000)
    await page.getByTestId('nav-approvals').click()
    await expect(page.locator('[data-testid^="approval-item-"]')).toHaveCount(1, { timeout: 15_000 })
    await page.keyboard.press('a')
    const result = await asked
    expect(result.structuredContent).toMatchObject({ ok: true, status: 'success' })
    const waitedMs = (result.structuredContent.meta.approval as { waitedMs: number }).waitedMs
    expect(waitedMs).toBeGreaterThanOrEqual(2_000)

    await page.getByTestId('nav-history').click()
    await page.getByTestId('history-filter-status').selectOption('')
    await expect(page.getByTestId(`history-status-${id}`)).toHaveText('success', { timeout: 10_000 })
    // The run time column shows the run alone; its hover names the wait, the run and the whole.
    const cell = page.getByTestId(`history-duration-${id}`)
    await expect(cell).toHaveAttribute('title', /^Waited .+ for approval, then ran .+ \(.+ in all\)$/)
    const [, waited, ran, whole] = /^Waited (.+) for approval, then ran (.+) \((.+) in all\)$/.exec((await cell.getAttribute('title'))!)!
    await expect(cell).toHaveText(ran!)
    expect(ran).not.toBe(whole)
    await rows(page).first().click()
    await expect(page.getByTestId('history-detail-durations')).toContainText(`${waited} · ${ran}`)
  } finally {
    await careful.close()
    await page.close()
    await served.stop()
  }
})
