import { resolve } from 'node:path'
import { serve, type RunningConsole } from '../../src/main/serve'
import { makeTempDir } from '../support/temp-home'
import { expect, test } from './fixtures'

// The host runs in this process (a real host, store and web server, as `airlock serve` builds
// them), so the test can also change agents behind the console's back and watch it follow.
let home: ReturnType<typeof makeTempDir>
let running: RunningConsole
let url = ''

test.beforeEach(async () => {
  home = makeTempDir('airlock-e2e-agents-')
  running = await serve({ home: home.path, port: 0, gatewayPort: 0, rendererDir: resolve(__dirname, '../../out/renderer'), open: false, logError: () => undefined, print: (line) => (url = line.startsWith('Airlock console: ') ? line.replace('Airlock console: ', '') : url) })
})

test.afterEach(async () => {
  await running.stop()
  home.remove()
})

test('an agent created in the console shows its token once, then can be disabled and removed', async ({ systemBrowser }) => {
  const context = await systemBrowser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] })
  const page = await context.newPage()
  await page.goto(`${url}#/agents`)
  await expect(page.getByTestId('empty-agents')).toContainText('airlock agent create <id>')
  await page.screenshot({ path: test.info().outputPath('agents-empty.png'), fullPage: true })

  // The form checks the id as main does before it asks.
  await page.getByTestId('agents-new').click()
  await page.getByTestId('create-agent-id').fill('Coder')
  await page.getByTestId('create-agent-submit').click()
  await expect(page.getByTestId('create-agent-problem')).toContainText('must be a slug')
  await page.getByTestId('create-agent-id').fill('coder')
  await page.getByTestId('create-agent-name').fill('Coding assistant')
  await page.getByTestId('create-agent-submit').click()

  const panel = page.getByTestId('agent-token-panel')
  await expect(panel).toContainText('will not be shown again')
  const token = (await page.getByTestId('agent-token').textContent())!
  expect(token).toMatch(/^alk_\S{20,}$/)
  // The token is the agent's real credential: main accepts it for this agent.
  expect(running.host.agents.agents.authenticate(token)).toMatchObject({ id: 'coder' })
  await page.getByTestId('agent-token-copy').click()
  await expect(page.getByTestId('agent-token-copy')).toHaveText('Copied')
  expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token)

  const row = page.getByTestId('agent-coder')
  await expect(row).toContainText('Coding assistant')
  await expect(page.getByTestId('agent-state-coder')).toHaveText('enabled')
  await expect(page.getByTestId('agent-enabled-coder')).toBeChecked()
  await page.screenshot({ path: test.info().outputPath('agents-token.png'), fullPage: true })

  // Dismissed, the token is gone for good: not on the page, not after a reload.
  await page.getByTestId('agent-token-dismiss').click()
  await expect(panel).toBeHidden()
  expect(await page.content()).not.toContain(token)
  await page.reload()
  await expect(row).toBeVisible()
  expect(await page.content()).not.toContain(token)

  // A second agent with the same id is refused by the form.
  await page.getByTestId('agents-new').click()
  await page.getByTestId('create-agent-id').fill('coder')
  await page.getByTestId('create-agent-submit').click()
  await expect(page.getByTestId('create-agent-problem')).toContainText('already exists')
  // Another one's token: leaving the view drops it as dismissing does.
  await page.getByTestId('create-agent-id').fill('scratch')
  await page.getByTestId('create-agent-submit').click()
  const second = (await page.getByTestId('agent-token').textContent())!
  await expect(page.getByTestId('agent-scratch')).toBeVisible()
  await page.getByTestId('nav-history').click()
  await page.getByTestId('nav-agents').click()
  await expect(page.getByTestId('agent-scratch')).toBeVisible()
  await expect(panel).toBeHidden()
  expect(await page.content()).not.toContain(second)
  running.host.agents.agents.remove('scratch')
  await expect(page.getByTestId('agent-scratch')).toBeHidden()

  // Disable: main records it (the agent can no longer authenticate), and the switch says so after a reload.
  await page.getByTestId('agent-enabled-coder').click()
  await expect(page.getByTestId('agent-state-coder')).toHaveText('disabled')
  await expect(page.getByTestId('agent-enabled-coder')).not.toBeChecked()
  expect(running.host.agents.agents.list().find((agent) => agent.id === 'coder')).toMatchObject({ enabled: false })
  expect(running.host.agents.agents.authenticate(token)).toBeUndefined()
  await page.reload()
  await expect(page.getByTestId('agent-state-coder')).toHaveText('disabled')
  await expect(page.getByTestId('agents-count')).toContainText('1 agent · 0 enabled · 1 disabled')
  await page.screenshot({ path: test.info().outputPath('agents-disabled.png'), fullPage: true })

  // Removal asks first; cancelling keeps the agent.
  await page.getByTestId('agent-remove-coder').click()
  await expect(page.getByTestId('agent-remove-confirmation-coder')).toContainText('moved aside')
  await page.screenshot({ path: test.info().outputPath('agents-remove-confirm.png'), fullPage: true })
  await page.getByTestId('agent-remove-confirmation-coder').getByRole('button', { name: 'Cancel' }).click()
  await expect(row).toBeVisible()
  await page.getByTestId('agent-remove-coder').click()
  await page.getByTestId('agent-remove-confirm-coder').click()
  await expect(page.getByTestId('empty-agents')).toBeVisible()
  expect(running.host.agents.agents.list()).toEqual([])
  await context.close()
})

test('the list follows agents changed outside the console (agents.changed)', async ({ systemBrowser }) => {
  const page = await systemBrowser.newPage()
  await page.goto(`${url}#/agents`)
  await expect(page.getByTestId('empty-agents')).toBeVisible()
  running.host.agents.agents.create('outside', { name: 'Made elsewhere' })
  await expect(page.getByTestId('agent-outside')).toContainText('Made elsewhere')
  await expect(page.getByTestId('agent-token-panel')).toBeHidden()
  running.host.agents.agents.setEnabled('outside', false)
  await expect(page.getByTestId('agent-state-outside')).toHaveText('disabled')
  running.host.agents.agents.remove('outside')
  await expect(page.getByTestId('empty-agents')).toBeVisible()
  await page.close()
})
