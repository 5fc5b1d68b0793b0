import { symlinkSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Page } from '@playwright/test'
import { serve, type RunningConsole } from '../../src/main/app/serve'
import { callTool, connectAgent } from '../support/mcp-gateway-client'
import { makeTempDir } from '../support/temp-home'
import { expect, test } from './fixtures'
import { expectNoSeriousA11yViolations, screenshotBothThemes } from './look'

// The host runs in this process (a real host, store, gateway and web server, as `airlock serve`
// builds them), so the test can also change agents behind the console's back, connect a real MCP
// client as the agent, and read the truth back from main.
let home: ReturnType<typeof makeTempDir>
let running: RunningConsole
let url = ''
const ctx = { transport: 'websocket' } as const
const call = async <T>(channel: string, input: unknown): Promise<T> => {
  const result = await running.host.dispatch(`airlock:${channel}`, input, ctx)
  if (!result.ok) throw new Error(result.error.message)
  return result.value as T
}
const field = (page: Page, name: string) => page.getByTestId(`agent-field-${name}`).locator('input, select, textarea').first()

test.beforeEach(async () => {
  home = makeTempDir('airlock-e2e-agents-', { outsideTmp: true })
  running = await serve({
    home: home.path,
    port: 0,
    gatewayPort: 0,
    rendererDir: resolve(__dirname, '../../out/renderer'),
    open: false,
    logError: () => undefined,
    print: (line) => (url = line.startsWith('Airlock console: ') ? line.replace('Airlock console: ', '') : url)
  })
})

test.afterEach(async () => {
  await running.stop()
  home.remove()
})

test('an agent created in the console: schema errors at their fields, the token once, edit, disable and remove', async ({ systemBrowser }) => {
  const context = await systemBrowser.newContext({ permissions: ['clipboard-read', 'clipboard-write'], viewport: { width: 1440, height: 900 } })
  const page = await context.newPage()
  await page.goto(`${url}#/agents`)
  await expect(page.getByTestId('empty-agents')).toContainText('airlock agent create <id>')
  await expectNoSeriousA11yViolations(page, 'agents (empty)')
  await screenshotBothThemes(page, test.info(), 'agents-empty')

  // The form checks with the schema main checks the call with; each message sits at its field.
  await page.getByTestId('agent-create-open').click()
  await expect(page.getByTestId('form-agent-profile')).toBeVisible()
  await field(page, 'agentId').fill('Coder')
  await field(page, 'limits.pids').fill('0')
  await page.getByTestId('agent-create-submit').click()
  await expect(page.getByTestId('agent-field-agentId-error')).toContainText('must be a slug')
  await expect(page.getByTestId('agent-field-limits.pids-error')).toHaveText('Too small: expected number to be >0')
  await expectNoSeriousA11yViolations(page, 'agents (create form with errors)')
  await screenshotBothThemes(page, test.info(), 'agents-form-errors')
  expect(running.host.agents.service.list()).toEqual([])

  await field(page, 'agentId').fill('coder')
  await field(page, 'name').fill('Coding assistant')
  await field(page, 'limits.pids').fill('')
  await field(page, 'ask').selectOption('always')
  await page.getByTestId('agent-create-submit').click()

  // The token, once; it is the agent's real credential, and the profile reached main as parsed.
  const panel = page.getByTestId('panel-agent-token')
  await expect(panel).toContainText('will not be shown again')
  const token = (await page.getByTestId('agent-token-value').textContent())!.trim()
  expect(token).toMatch(/^alk_\S{20,}$/)
  expect(running.host.agents.service.authenticate(token)).toMatchObject({ id: 'coder' })
  expect(running.host.agents.service.list()).toMatchObject([{ id: 'coder', name: 'Coding assistant', profile: { ask: 'always' } }])
  await page.getByTestId('agent-token-copy').click()
  await expect(page.getByTestId('agent-token-copy')).toHaveText('Copied')
  expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token)
  await expect(page.getByTestId('agent-row-coder')).toContainText('Coding assistant')
  await expect(page.getByTestId('agent-detail')).toContainText('Coding assistant')
  await expect(page.getByTestId('agent-state-coder')).toHaveText('enabled')
  await expectNoSeriousA11yViolations(page, 'agents (token)')
  await screenshotBothThemes(page, test.info(), 'agents-token')

  // Dismissed, the token is gone for good: not on the page, not after a reload.
  await page.getByTestId('agent-token-dismiss').click()
  await expect(panel).toBeHidden()
  expect(await page.content()).not.toContain(token)
  await page.reload()
  await expect(page.getByTestId('agent-row-coder')).toBeVisible()
  expect(await page.content()).not.toContain(token)

  // An id already taken is refused at its field before main is asked.
  await page.getByTestId('agent-create-open').click()
  await field(page, 'agentId').fill('coder')
  await page.getByTestId('agent-create-submit').click()
  await expect(page.getByTestId('agent-field-agentId-error')).toHaveText('An agent with the id coder already exists.')
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('form-agent-profile')).toBeHidden()

  // Edit: the stored profile changes in main, untouched keys kept; the Profile tab says where each value comes from.
  await page.getByTestId('agent-tab-profile').click()
  await expect(page.getByTestId('agent-profile')).toContainText('always')
  await page.getByTestId('agent-edit-open').click()
  await field(page, 'network').selectOption('proxy')
  await field(page, 'limits.timeoutSeconds').fill('30')
  await page.getByTestId('agent-edit-submit').click()
  await expect(page.getByTestId('form-agent-profile')).toBeHidden()
  expect(running.host.agents.service.list()[0]!.profile).toEqual({ ask: 'always', network: 'proxy', limits: { timeoutSeconds: 30 } })
  await expect(page.getByTestId('agent-profile')).toContainText('30 s')
  await expect(page).toHaveURL(/#\/agents\?agent=coder&tab=profile$/)
  await expectNoSeriousA11yViolations(page, 'agents (profile tab)')
  await screenshotBothThemes(page, test.info(), 'agents-profile')

  // Rotate: a new token, shown once; the old one stops working at once.
  await page.getByTestId('agent-rotate-coder').click()
  await expect(page.getByTestId('dialog-agent-rotate')).toContainText('stops working at once')
  await page.getByTestId('dialog-agent-rotate-confirm').click()
  await expect(panel).toContainText('The previous token no longer works.')
  const rotated = (await page.getByTestId('agent-token-value').textContent())!.trim()
  expect(rotated).not.toBe(token)
  expect(running.host.agents.service.authenticate(token)).toBeUndefined()
  expect(running.host.agents.service.authenticate(rotated)).toMatchObject({ id: 'coder' })
  await page.getByTestId('agent-token-close').click()
  await expect(panel).toBeHidden()

  // Disable: main records it (the agent can no longer authenticate), and the switch says so after a reload.
  await page.getByTestId('agent-enabled-coder').click()
  await expect(page.getByTestId('agent-state-coder')).toHaveText('disabled')
  expect(running.host.agents.service.list()[0]).toMatchObject({ enabled: false })
  expect(running.host.agents.service.authenticate(rotated)).toBeUndefined()
  await page.reload()
  await expect(page.getByTestId('agent-state-coder')).toHaveText('disabled')
  await expect(page.getByTestId('agent-status-coder')).toHaveText('disabled')
  await expect(page.getByTestId('agents-count')).toHaveText('1 agent · 0 enabled · 1 disabled')

  // Removal asks first; cancelling keeps the agent.
  await page.getByTestId('agent-remove-coder').click()
  await expect(page.getByTestId('dialog-agent-remove')).toContainText('moved aside')
  await page.getByTestId('dialog-agent-remove-cancel').click()
  await expect(page.getByTestId('agent-row-coder')).toBeVisible()
  await page.getByTestId('agent-remove-coder').click()
  await page.getByTestId('dialog-agent-remove-confirm').click()
  await expect(page.getByTestId('empty-agents')).toBeVisible()
  expect(running.host.agents.service.list()).toEqual([])
  await context.close()
})

test('the list follows agents changed outside the console (agents.changed)', async ({ systemBrowser }) => {
  const context = await systemBrowser.newContext()
  const page = await context.newPage()
  await page.goto(`${url}#/agents`)
  await expect(page.getByTestId('empty-agents')).toBeVisible()
  running.host.agents.service.create('outside', { name: 'Made elsewhere' })
  await expect(page.getByTestId('agent-row-outside')).toContainText('Made elsewhere')
  await expect(page.getByTestId('agent-detail')).toContainText('Made elsewhere')
  await expect(page.getByTestId('panel-agent-token')).toBeHidden()
  running.host.agents.service.setEnabled('outside', false)
  await expect(page.getByTestId('agent-state-outside')).toHaveText('disabled')
  running.host.agents.service.remove('outside')
  await expect(page.getByTestId('empty-agents')).toBeVisible()
  await context.close()
})

test('a connected agent: live list facts, usage chart, recent calls, workspace browser and snippets', async ({ systemBrowser }) => {
  test.setTimeout(180_000)
  const created = running.host.agents.service.create('researcher', { name: 'Research assistant' })
  running.host.agents.service.create('idle-one', { name: 'Never connected' })
  const agent = await connectAgent(running.gateway.url, created.token)
  let asking: Promise<unknown> | undefined
  try {
    await callTool(agent.client, 'write_file', { path: 'notes/plan.md', content: '# Plan\n\n- read the data\n- write the report\n' })
    await callTool(agent.client, 'write_file', {
      path: 'src/report.py',
      content: 'import json\n\n\ndef total(rows):\n    """Sum the rows."""\n    return sum(r["n"] for r in rows)  # all of them\n'
    })
    await callTool(agent.client, 'run_command', { command: 'echo done' })
    await callTool(agent.client, 'run_command', { command: 'cat missing.txt' })
    // The workspace is written by sandboxed code: a symlink out of it is listed, never followed.
    symlinkSync('/etc/passwd', join(created.workspace, 'passwd-link'))
    const context = await systemBrowser.newContext({ viewport: { width: 1920, height: 1080 } })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    await page.goto(`${url}#/agents?agent=researcher`)

    // A call that needs the operator shows as pending on the row, without a reload.
    const row = page.getByTestId('agent-row-researcher')
    await expect(row).toContainText('connected')
    await expect(page.getByTestId('agent-sessions-researcher')).toHaveText('1 session')
    asking = callTool(agent.client, 'run_command', { command: 'rm -rf notes/old' }, { timeout: 170_000 }).catch(() => undefined)
    await expect(page.getByTestId('agent-pending-researcher')).toHaveText('1')
    const [session] = await call<{ taint: string }[]>('sessions:list', { agentId: 'researcher', open: true })
    await expect(page.getByTestId('agent-taint-researcher')).toHaveText(session!.taint)
    await expect(page.getByTestId('agent-row-idle-one')).toContainText('idle')
    await expect(page.getByTestId('agent-activity-idle-one')).toHaveText('no activity')

    // Usage and recent calls agree with the host's history.
    const usage = await call<{ buckets: { counts: Record<string, number> }[]; durations: { p50: number | null } }>('history:usage', { agentId: 'researcher' })
    const total = usage.buckets.reduce((sum, bucket) => sum + Object.values(bucket.counts).reduce((a, b) => a + b, 0), 0)
    expect(total).toBeGreaterThanOrEqual(4)
    const chart = page.getByTestId('chart-agent-usage')
    await expect(page.getByTestId('agent-usage-totals')).toContainText(`${total} calls`)
    await expect(chart.locator('.recharts-bar-rectangle').first()).toBeVisible()
    await expect(page.getByTestId('agent-usage-p50')).not.toHaveText('—')
    const { rows } = await call<{ rows: { id: string; tool: string }[] }>('history:list', { agentId: 'researcher', limit: 8 })
    await expect(page.getByTestId(`agent-call-${rows[0]!.id}`)).toBeVisible()
    await expect(page.getByTestId('agent-history-link')).toHaveAttribute('href', '#/history?agent=researcher')
    await expect(page.getByTestId('agent-fact-pending')).toContainText('1 waiting')
    await expectNoSeriousA11yViolations(page, 'agents (overview)')
    await screenshotBothThemes(page, test.info(), 'agents-overview-1920')

    // Workspace: the tree lists lazily, a file opens highlighted, its place is kept in the URL.
    await page.getByTestId('agent-tab-workspace').click()
    const tree = page.getByTestId('workspace-tree')
    await expect(tree.getByTestId('workspace-entry-notes')).toBeVisible()
    await expect(tree.getByTestId('workspace-entry-src/report.py')).toHaveCount(0)
    await expect(tree.getByTestId('workspace-entry-passwd-link')).toContainText('symlink')
    await expect(tree.getByTestId('workspace-entry-passwd-link').locator('button')).toHaveCount(0)
    await tree.getByTestId('workspace-entry-src').click()
    await tree.getByTestId('workspace-entry-src/report.py').click()
    const viewer = page.getByTestId('workspace-file-view')
    await expect(viewer).toContainText('def total(rows):')
    await expect(viewer.locator('.hljs-keyword').first()).toHaveText('import')
    await expect(viewer.locator('.hljs-comment')).toHaveText('# all of them')
    await expect(page).toHaveURL(/tab=workspace&file=src%2Freport\.py$/)
    await expectNoSeriousA11yViolations(page, 'agents (workspace)')
    await screenshotBothThemes(page, test.info(), 'agents-workspace-1920')
    await page.reload()
    await expect(page.getByTestId('workspace-file-path')).toHaveText('src/report.py')
    await expect(page.getByTestId('workspace-tree').getByTestId('workspace-entry-src/report.py')).toHaveAttribute('aria-current', 'true')
    await page.getByTestId('workspace-show-recent').click()
    await expect(page.getByTestId('workspace-change-notes/plan.md')).toBeVisible()
    await page.getByTestId('workspace-change-notes/plan.md').click()
    await expect(viewer).toContainText('write the report')
    // A file the agent writes while the operator looks appears without a reload.
    await page.getByTestId('workspace-show-tree').click()
    await expect(page.getByTestId('workspace-entry-notes/plan.md')).toHaveAttribute('aria-current', 'true')
    await callTool(agent.client, 'write_file', { path: 'notes/later.md', content: 'written while you looked\n' })
    await expect(page.getByTestId('workspace-entry-notes/later.md')).toBeVisible()

    // Connect: the live gateway URL in every snippet, the token only as a placeholder.
    await page.getByTestId('agent-tab-connect').click()
    await expect(page.getByTestId('agent-gateway-url')).toHaveText(running.gateway.url)
    await expect(page.getByTestId('agent-snippet-generic')).toContainText(running.gateway.url)
    await expect(page.getByTestId('agent-snippet-generic')).toContainText('Bearer <token>')
    await expect(page.getByTestId('agent-snippet-claude-code')).toContainText('claude mcp add --transport http airlock-researcher')
    await expect(page.getByTestId('agent-snippet-stdio')).toContainText('mcp-stdio')
    await expectNoSeriousA11yViolations(page, 'agents (connect)')
    await screenshotBothThemes(page, test.info(), 'agents-connect-1920')

    // The narrowest supported width: every tab still fits.
    await page.setViewportSize({ width: 1024, height: 768 })
    for (const tab of ['overview', 'workspace', 'connect', 'profile'] as const) {
      await page.getByTestId(`agent-tab-${tab}`).click()
      await expect(page.getByTestId('agent-detail')).toBeVisible()
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')
      expect(overflow, `horizontal overflow on the ${tab} tab at 1024 px`).toBeLessThanOrEqual(0)
      await expectNoSeriousA11yViolations(page, `agents (${tab} tab, 1024 px)`)
      await screenshotBothThemes(page, test.info(), `agents-${tab}-1024`)
    }
    expect(pageErrors, 'errors thrown in the page').toEqual([])
    await context.close()
  } finally {
    await agent.close().catch(() => undefined)
    await asking
  }
})
