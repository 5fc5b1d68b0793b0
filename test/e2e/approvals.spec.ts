import type { Page } from '@playwright/test'
import { callTool, connectAgent, type GatewayToolResult } from '../support/mcp-gateway-client'
import { runAirlockAsync } from '../support/run-cli'
import { serveWithAgents } from '../support/serve-with-agents'
import { expect, test } from './fixtures'
import { expectNoSeriousA11yViolations, screenshotBothThemes } from './look'

// The Approvals view against the real product: `airlock serve` (a real host, its MCP gateway and
// the console's queue), real MCP SDK clients as agents whose profiles ask before every write or
// command (`ask: always`), commands run in real bubblewrap sandboxes, and the operator in Chromium
// deciding with the keyboard. Every pending item is made by an agent's call through the gateway;
// every result is read back from the client that made the call.

const items = (page: Page) => page.locator('[data-testid^="approval-item-"]')
const idOf = async (page: Page, index: number) => (await items(page).nth(index).getAttribute('data-testid'))!.replace('approval-item-', '')
const selected = (page: Page) => page.locator('[data-testid^="approval-item-"][aria-current="true"]')
const press = (page: Page, key: string) => page.keyboard.press(key)
/** A call still waiting when a test fails is dropped by closing its client: that must not surface as an unhandled rejection. */
const settled = <T>(call: Promise<T>): Promise<T> => {
  call.catch(() => undefined)
  return call
}

test('triage with the keyboard: requests appear live, each decision reaches the agent that asked', async ({ systemBrowser }) => {
  test.setTimeout(240_000)
  const served = await serveWithAgents('airlock-e2e-approvals-', {
    coder: { capabilities: ['files', 'shell'], ask: 'always' },
    builder: { capabilities: ['shell'], ask: 'always' }
  })
  const coder = await connectAgent(served.gatewayUrl, served.tokens.coder!)
  const builder = await connectAgent(served.gatewayUrl, served.tokens.builder!)
  const page = await (await systemBrowser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  const ask = (agent: typeof coder, tool: string, args: Record<string, unknown>): Promise<GatewayToolResult> =>
    settled(callTool(agent.client, tool, args, { timeout: 200_000 }))
  try {
    // The empty queue, once the host answered.
    await page.goto(`${served.consoleUrl}#/approvals`)
    await expect(page.getByTestId('approvals-empty')).toContainText('Nothing is waiting')
    await expectNoSeriousA11yViolations(page, 'approvals, empty')
    await screenshotBothThemes(page, test.info(), 'approvals-empty')

    // 1. A new file: the item appears without a reload, its diff is all additions; `a` approves it.
    const written = ask(coder, 'write_file', { path: 'notes/plan.md', content: '# Plan\n\n- read the data\n- write the report\n' })
    await expect(items(page)).toHaveCount(1, { timeout: 15_000 })
    await expect(selected(page)).toContainText('coder')
    const diff = page.getByTestId('approval-diff')
    await expect(diff).toContainText('notes/plan.md')
    await expect(diff.locator('[data-kind="add"]')).toHaveCount(4)
    await expect(diff.locator('[data-kind="del"]')).toHaveCount(0)
    await press(page, 'a')
    expect((await written).structuredContent).toMatchObject({ ok: true, status: 'success' })
    await expect(items(page)).toHaveCount(0)
    await expect(page.getByTestId('approval-last-decision')).toContainText('Approved once')

    // 2. Three requests from two agents: an edit (a diff with a removed and an added line), a
    //    deletion, and two identical commands batched into one item (×2, both calls waiting).
    const edited = ask(coder, 'edit_file', { path: 'notes/plan.md', oldText: '- read the data', newText: '- read the data twice' })
    await expect(items(page)).toHaveCount(1, { timeout: 15_000 })
    const editId = await idOf(page, 0)
    const removed = ask(builder, 'run_command', { command: 'rm -rf build && echo cleaned' })
    await expect(items(page)).toHaveCount(2, { timeout: 15_000 })
    const removeId = await idOf(page, 0)
    const batched = [ask(coder, 'run_command', { command: 'echo batched' }), ask(coder, 'run_command', { command: 'echo batched' })]
    await expect(items(page)).toHaveCount(3, { timeout: 15_000 })
    const batchId = await idOf(page, 0)
    await expect(page.getByTestId(`approval-item-${batchId}`)).toContainText('×2', { timeout: 15_000 })
    expect([batchId, removeId, editId]).toEqual([await idOf(page, 0), await idOf(page, 1), await idOf(page, 2)]) // newest first
    await expect(page.getByTestId(`approval-item-${removeId}`)).toContainText('deletion')
    await expect(page.getByTestId(`approval-item-${removeId}`)).toContainText('builder')

    // The selection stays on the item it was on while newer ones arrive above it (by id, never by place).
    await expect(selected(page)).toHaveAttribute('data-testid', `approval-item-${editId}`)
    await expect(page.getByTestId('approval-diff').locator('[data-kind="del"]')).toHaveText(/- read the data/)
    await expect(page.getByTestId('approval-diff').locator('[data-kind="add"]')).toHaveText(/- read the data twice/)
    await expect(page).toHaveURL(new RegExp(`#/approvals\\?id=${editId}$`))
    await expectNoSeriousA11yViolations(page, 'approvals, queue with a diff')
    await screenshotBothThemes(page, test.info(), 'approvals-queue-diff')

    // k/j move the selection; the detail follows (the parsed commands as tokens).
    await press(page, 'k')
    await expect(selected(page)).toHaveAttribute('data-testid', `approval-item-${removeId}`)
    const tokens = page.getByTestId('approval-commands').locator('.appr-token')
    await expect(tokens).toHaveText(['rm', '-rf', 'build', 'echo', 'cleaned'])
    await press(page, 'k')
    await expect(selected(page)).toHaveAttribute('data-testid', `approval-item-${batchId}`)
    await press(page, 'k')
    await expect(selected(page)).toHaveAttribute('data-testid', `approval-item-${batchId}`)
    await press(page, 'j')
    await expect(selected(page)).toHaveAttribute('data-testid', `approval-item-${removeId}`)
    await expect(page).toHaveURL(new RegExp(`#/approvals\\?id=${removeId}$`))
    await screenshotBothThemes(page, test.info(), 'approvals-queue-command')
    for (const width of [1024, 1920]) {
      await page.setViewportSize({ width, height: 900 })
      await screenshotBothThemes(page, test.info(), `approvals-queue-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })

    // `?` shows the keys; while it is open no key decides or moves anything.
    await press(page, '?')
    await expect(page.getByTestId('dialog-keyboard-help')).toContainText('Approve the selected request once')
    await press(page, 'j')
    await press(page, 'a')
    await expectNoSeriousA11yViolations(page, 'approvals, keyboard help')
    await screenshotBothThemes(page, test.info(), 'approvals-keys-dialog')
    await press(page, 'Escape')
    await expect(page.getByTestId('dialog-keyboard-help')).toHaveCount(0)
    await expect(selected(page)).toHaveAttribute('data-testid', `approval-item-${removeId}`)
    await expect(items(page)).toHaveCount(3)

    // `d`: deny with a reason; typing j/a/s in the reason does nothing to the queue; Enter denies.
    await press(page, 'd')
    const reason = page.getByTestId('approval-deny-reason')
    await expect(reason).toBeFocused()
    await press(page, 'Enter')
    await expect(page.getByTestId('dialog-approval-deny')).toContainText('Say why')
    await reason.pressSequentially('just a sandbox: keep build')
    await expect(selected(page)).toHaveAttribute('data-testid', `approval-item-${removeId}`)
    await expectNoSeriousA11yViolations(page, 'approvals, deny dialog')
    await screenshotBothThemes(page, test.info(), 'approvals-deny-dialog')
    await press(page, 'Enter')
    const denied = await removed
    expect(denied.structuredContent).toMatchObject({ ok: false, status: 'blocked', error: { code: 'approval.denied' } })
    expect(denied.structuredContent.error!.message).toContain('just a sandbox: keep build')
    await expect(items(page)).toHaveCount(2)
    // The selection went on to the item that took the denied one's place.
    await expect(selected(page)).toHaveAttribute('data-testid', `approval-item-${editId}`)

    // `k` back to the batched commands; `s` approves both waiting calls for the session.
    await press(page, 'k')
    await expect(selected(page)).toHaveAttribute('data-testid', `approval-item-${batchId}`)
    await press(page, 's')
    for (const result of await Promise.all(batched)) {
      expect(result.structuredContent).toMatchObject({ ok: true, status: 'success', meta: { approval: { status: 'approved', approvalId: batchId } } })
      expect((result.structuredContent.data as { stdout: string }).stdout).toBe('batched\n')
    }
    await expect(items(page)).toHaveCount(1)
    // The same command again in this session runs without asking (the session rule).
    const again = await ask(coder, 'run_command', { command: 'echo batched' })
    expect(again.structuredContent).toMatchObject({ ok: true, status: 'success' })
    await expect(items(page)).toHaveCount(1)

    // `r`: approve the edit as a rule — the dialog shows what it will match; one hour.
    await expect(selected(page)).toHaveAttribute('data-testid', `approval-item-${editId}`)
    await press(page, 'r')
    const ruleDialog = page.getByTestId('dialog-approval-rule')
    await expect(ruleDialog.getByTestId('rule-preview')).toContainText('notes/plan.md')
    await expect(ruleDialog.getByTestId('rule-preview')).toContainText('edit_file')
    await expect(ruleDialog.getByTestId('rule-scope-agent')).toBeChecked()
    await expect(ruleDialog.getByTestId('approval-rule-confirm')).toBeFocused() // r, then Enter: the defaults
    await ruleDialog.getByTestId('ttl-3600').click()
    await expectNoSeriousA11yViolations(page, 'approvals, rule dialog')
    await screenshotBothThemes(page, test.info(), 'approvals-rule-dialog')
    await ruleDialog.getByTestId('approval-rule-confirm').click()
    expect((await edited).structuredContent).toMatchObject({ ok: true, status: 'success' })
    await expect(page.getByTestId('approvals-empty')).toBeVisible()

    // The Rules tab: the rule, its hit count going up live when a later edit matches it.
    await page.getByTestId('tab-rules').click()
    await expect(page).toHaveURL(/#\/approvals\?tab=rules$/)
    const rows = page.locator('[data-testid^="rule-row-"]')
    // Two rules: the session rule `s` made (it already matched the repeated command) and the edit's.
    await expect(rows).toHaveCount(2)
    const sessionRule = rows.filter({ hasText: 'run_command: echo batched' })
    await expect(sessionRule).toContainText('session')
    await expect(sessionRule.locator('[data-testid^="rule-hits-"]')).toHaveText('1')
    const ruleRow = rows.filter({ hasText: 'edit_file in notes/plan.md' })
    const ruleId = (await ruleRow.getAttribute('data-testid'))!.replace('rule-row-', '')
    await expect(page.getByTestId(`rule-hits-${ruleId}`)).toHaveText('0')
    await expect(page.getByTestId(`rule-expiry-${ruleId}`)).toContainText(/in (59m|1h)/)
    const covered = await ask(coder, 'edit_file', { path: 'notes/plan.md', oldText: '- write the report', newText: '- write the report today' })
    expect(covered.structuredContent).toMatchObject({ ok: true, status: 'success', meta: { approval: { ruleId } } })
    await expect(page.getByTestId(`rule-hits-${ruleId}`)).toHaveText('1')
    await expectNoSeriousA11yViolations(page, 'approvals, rules tab')
    await screenshotBothThemes(page, test.info(), 'approvals-rules')

    // Edit its TTL to none, then revoke it behind a confirmation.
    await page.getByTestId(`rule-edit-${ruleId}`).click()
    await page.getByTestId('dialog-rule-edit').getByTestId('ttl-none').click()
    await page.getByTestId('rule-edit-save').click()
    await expect(page.getByTestId('dialog-rule-edit')).toHaveCount(0)
    await expect(page.getByTestId(`rule-expiry-${ruleId}`)).toHaveText('never')
    await page.getByTestId(`rule-revoke-${ruleId}`).click()
    await expect(page.getByTestId('dialog-rule-revoke')).toContainText('ask you again')
    await page.getByTestId('dialog-rule-revoke-confirm').click()
    await expect(page.getByTestId(`rule-row-${ruleId}`)).toHaveCount(0)
    await expect(rows).toHaveCount(1)
    await page.getByTestId('rules-show-ended').check()
    await expect(page.getByTestId(`rule-row-${ruleId}`)).toHaveAttribute('data-state', 'revoked')

    // A decided item from a link (the History drawer's) shows read-only with its decision.
    await page.goto(`${served.consoleUrl}#/approvals?id=${removeId}`)
    const detail = page.getByTestId('approval-detail')
    await expect(detail).toHaveAttribute('data-status', 'denied')
    await expect(page.getByTestId('approval-outcome')).toContainText('Denied')
    await expect(page.getByTestId('approval-outcome')).toContainText('just a sandbox: keep build')
    await expect(page.getByTestId('approval-approve')).toHaveCount(0)
    await press(page, 'a')
    await expect(detail).toContainText('not pending: there is nothing to decide')
    await screenshotBothThemes(page, test.info(), 'approvals-decided')

    // An item decided elsewhere (the CLI) while selected stays in view, read-only: no key decides another.
    const viaCli = ask(builder, 'run_command', { command: 'echo from-the-cli' })
    await page.goto(`${served.consoleUrl}#/approvals`)
    await expect(items(page)).toHaveCount(1, { timeout: 15_000 })
    const cliId = await idOf(page, 0)
    await expect(selected(page)).toHaveAttribute('data-testid', `approval-item-${cliId}`)
    const approved = await runAirlockAsync(['approvals', 'approve', cliId, '--home', served.home])
    expect(approved.code, approved.stderr).toBe(0)
    expect((await viaCli).structuredContent).toMatchObject({ ok: true, status: 'success' })
    await expect(detail).toHaveAttribute('data-status', 'approved')
    await expect(page.getByTestId('approval-outcome')).toContainText('by cli')
    await expect(items(page)).toHaveCount(0)

    // A double-click on Approve decides the request it was aimed at, never also the next one.
    const first = ask(builder, 'run_command', { command: 'echo first' })
    await expect(items(page)).toHaveCount(1, { timeout: 15_000 })
    const second = ask(builder, 'run_command', { command: 'echo second' })
    await expect(items(page)).toHaveCount(2, { timeout: 15_000 })
    await page.locator('[data-testid^="approval-item-"]', { hasText: 'echo first' }).click()
    await page.waitForTimeout(500)
    // The host answers within a double-click's interval: the second click lands on the next request.
    await page.getByTestId('approval-approve').click()
    await expect(selected(page)).toContainText('echo second')
    await page.getByTestId('approval-approve').click()
    expect((await first).structuredContent).toMatchObject({ ok: true, status: 'success' })
    await page.waitForTimeout(300)
    await expect(items(page)).toHaveCount(1)
    await expect(selected(page)).toContainText('echo second')
    await press(page, 'a')
    expect((await second).structuredContent).toMatchObject({ ok: true, status: 'success' })

    // A busy queue: twelve requests from two agents, the list scrolls by itself beside the detail.
    for (let index = 0; index < 12; index++)
      ask(index % 3 === 0 ? builder : coder, 'run_command', { command: `ls -la src/module-${index} && rm -f src/module-${index}/cache.tmp` })
    await expect(items(page)).toHaveCount(12, { timeout: 30_000 })
    await expect(page.getByTestId('tab-queue')).toContainText('12')
    await screenshotBothThemes(page, test.info(), 'approvals-queue-busy')
  } finally {
    await coder.close().catch(() => undefined)
    await builder.close().catch(() => undefined)
    await page.context().close()
    await served.stop()
  }
})

test('the window title, favicon and navigation count follow the queue from any view', async ({ systemBrowser }) => {
  test.setTimeout(120_000)
  const served = await serveWithAgents('airlock-e2e-approvals-', { coder: { capabilities: ['shell'], ask: 'always' } })
  const coder = await connectAgent(served.gatewayUrl, served.tokens.coder!)
  const page = await (await systemBrowser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
  try {
    await page.goto(`${served.consoleUrl}#/history`)
    await expect(page).toHaveTitle('Airlock')
    await expect(page.getByTestId('nav-approvals-count')).toHaveCount(0)
    const call = settled(callTool(coder.client, 'run_command', { command: 'echo counted' }, { timeout: 100_000 }))
    await expect(page).toHaveTitle('(1) Airlock', { timeout: 15_000 })
    await expect(page.getByTestId('nav-approvals-count')).toHaveText('1')
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toMatch(/^data:image\/png;base64,/)
    const [id] = JSON.parse((await runAirlockAsync(['approvals', 'list', '--json', '--home', served.home])).stdout) as { id: string }[]
    expect((await runAirlockAsync(['approvals', 'approve', id!.id, '--home', served.home])).code).toBe(0)
    expect((await call).structuredContent).toMatchObject({ ok: true })
    await expect(page).toHaveTitle('Airlock')
    await expect(page.getByTestId('nav-approvals-count')).toHaveCount(0)
  } finally {
    await coder.close().catch(() => undefined)
    await page.context().close()
    await served.stop()
  }
})
