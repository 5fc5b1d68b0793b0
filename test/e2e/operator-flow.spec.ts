import { checkEngine, createDockerClient } from '../../src/main/providers'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import { callTool, connectAgent, startServeWithGateway, type GatewayToolResult } from '../support/mcp-gateway-client'
import { makeTempDir } from '../support/temp-home'
import { expect, test } from './fixtures'
import { expectNoSeriousA11yViolations, screenshotBothThemes } from './look'
import { moveProviderDownByKeyboard } from './provider-order'

// The operator's whole loop, through the real product: `airlock serve` (a real host with real
// providers on a fresh home and its MCP gateway), the built console in Chromium, and a real MCP
// SDK client as the agent. Nothing is seeded: the agent is created in the UI, its token copied
// from the UI, its call asks, the operator approves with the keyboard, and the result, history,
// provider order and resources are all read back from the host.

test('an operator creates an agent, approves its call with the keyboard, reads its history, reorders providers and releases a resource', async ({
  systemBrowser
}) => {
  test.setTimeout(300_000)
  const home = makeTempDir('airlock-e2e-flow-', { outsideTmp: true })
  const served = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home.path])
  const consoleUrl = served.consoleLine.replace('Airlock console: ', '')
  const gatewayUrl = served.gatewayLine.replace('Agent gateway: ', '')
  const page = await (await systemBrowser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  let agent: Awaited<ReturnType<typeof connectAgent>> | undefined
  try {
    // 1. Create an agent in the UI; its token is shown once.
    await page.goto(`${consoleUrl}#/agents`)
    await page.getByTestId('agent-create-open').click()
    const form = page.getByTestId('form-agent-profile')
    await expect(form).toBeVisible()
    await form.locator('[data-testid="agent-field-agentId"] input, input[data-testid="agent-field-agentId"]').fill('coder')
    await page.getByTestId('agent-create-submit').click()
    const tokenText = (await page.getByTestId('agent-token-value').textContent())?.trim() ?? ''
    expect(tokenText).toMatch(/\S{20,}/)
    await expect(page.getByTestId('agent-row-coder')).toBeVisible()

    // 2. The agent connects with that token and makes a call the policy asks about (a deletion).
    agent = await connectAgent(gatewayUrl, tokenText)
    const pending: Promise<GatewayToolResult> = callTool(agent.client, 'run_command', { command: 'rm -rf old-build && echo cleaned-up' }, { timeout: 120_000 })

    // 3. The item appears in the queue without a reload, and the title counts it.
    await page.getByTestId('nav-approvals').click()
    const item = page.locator('[data-testid^="approval-item-"]')
    await expect(item).toHaveCount(1, { timeout: 15_000 })
    await expect(item.first()).toContainText('coder')
    await expect(page).toHaveTitle(/^\(1\) Airlock/)
    await expect(page.getByTestId('approval-detail')).toContainText('rm')
    await screenshotBothThemes(page, test.info(), 'flow-approval-pending')

    // 4. Approve it with the keyboard: select, then `a`.
    await page.locator('body').press('j')
    await page.locator('body').press('a')
    const result = await pending
    expect(result.structuredContent.status).toBe('success')
    expect(JSON.stringify(result.structuredContent.data)).toContain('cleaned-up')
    await expect(item).toHaveCount(0)
    await expect(page).toHaveTitle(/^Airlock/)

    // 5. The history row is there with its status, and its drawer shows the output.
    await page.getByTestId('nav-history').click()
    const row = page.locator('[data-testid^="history-row-"]').first()
    await expect(row).toContainText('run_command')
    const rowId = (await row.getAttribute('data-testid'))!.replace('history-row-', '')
    await expect(page.getByTestId(`history-status-${rowId}`)).toHaveText('success')
    await row.click()
    await expect(page.getByTestId('history-drawer')).toBeVisible()
    await expect(page.getByTestId('history-stdout')).toContainText('cleaned-up')
    await expectNoSeriousA11yViolations(page, 'history drawer')
    await screenshotBothThemes(page, test.info(), 'flow-history-drawer')
    await page.keyboard.press('Escape')

    // 6. Reorder the code-execution providers with the keyboard; the order survives a reload.
    await page.getByTestId('nav-providers').click()
    const order = page.locator('[data-testid^="provider-order-item-"]')
    await expect(order.first()).toHaveAttribute('data-testid', 'provider-order-item-bubblewrap')
    await expect(page.getByTestId('provider-order-status-bubblewrap')).toHaveText(/^(available|unavailable)$/)
    await moveProviderDownByKeyboard(page, 'bubblewrap', 2)
    await expect(order.first()).toHaveAttribute('data-testid', 'provider-order-item-docker')
    await page.reload()
    await expect(order.first()).toHaveAttribute('data-testid', 'provider-order-item-docker', { timeout: 15_000 })
    await expect(order.nth(1)).toHaveAttribute('data-testid', 'provider-order-item-bubblewrap')

    // 6b. The agent names no providers of its own: it follows the operator's order, so its next
    // run_code runs on docker, and History's row says so. (Needs a Docker engine and its images.)
    const docker = createDockerClient()
    const engine = await checkEngine(docker)
    const noDocker = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })
    if (noDocker) {
      test.info().annotations.push({ type: 'skipped step', description: `6b: ${noDocker}` })
    } else {
      await ensureTestImages(docker)
      const ran = await callTool(agent.client, 'run_code', { language: 'python', sourceCode: "print('ran where the operator said')" }, { timeout: 120_000 })
      expect(ran.structuredContent.status, JSON.stringify(ran.structuredContent.error)).toBe('success')
      expect(ran.structuredContent.meta.provider).toMatchObject({ providerId: 'docker' })
      await page.getByTestId('nav-history').click()
      const newest = page.locator('[data-testid^="history-row-"]').first()
      await expect(newest).toContainText('run_code')
      await expect(newest).toContainText('docker')
    }

    // 7. The agent's session holds a live resource; release it from the Resources view.
    await page.getByTestId('nav-resources').click()
    const handles = page.locator('[data-testid^="resource-row-"]')
    await expect(handles.first()).toBeVisible({ timeout: 15_000 })
    const before = await handles.count()
    const handleId = (await handles.first().getAttribute('data-testid'))!.replace('resource-row-', '')
    await page.getByTestId(`resource-release-${handleId}`).click()
    await page.getByTestId('dialog-release-confirm-confirm').click()
    await expect(page.getByTestId(`resource-row-${handleId}`)).toHaveCount(0)
    await expect(handles).toHaveCount(before - 1)
  } finally {
    await agent?.close().catch(() => undefined)
    await page.close()
    await served.stop()
    home.remove()
  }
})
