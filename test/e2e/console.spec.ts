import type { ProviderView } from '@shared/ipc'
import WebSocket from 'ws'
import { expect, test } from './fixtures'
import { expectNoSeriousA11yViolations, screenshotBothThemes } from './look'

/** The providers as main probes them on this machine, asked over the console's own WebSocket. */
async function probedProviders(served: { port: number; token: string }): Promise<ProviderView[]> {
  const ws = new WebSocket(`ws://127.0.0.1:${served.port}/ws?token=${served.token}`)
  try {
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    const answer = new Promise<{ ok: true; value: { providers: ProviderView[] } }>((resolve) =>
      ws.on('message', (data) => {
        const frame = JSON.parse(data.toString())
        if (frame.type === 'result' && frame.id === 1) resolve(frame.result)
      })
    )
    ws.send(JSON.stringify({ type: 'call', id: 1, channel: 'airlock:providers:list', input: {} }))
    const result = await answer
    expect(result.ok).toBe(true)
    return result.value.providers
  } finally {
    ws.close()
  }
}

const views = ['agents', 'approvals', 'history', 'providers', 'resources', 'settings'] as const

/** The empty state of each view on a fresh home, and words that say what to do next. */
const emptyStates: Partial<Record<(typeof views)[number], { testId: string; says: RegExp }>> = {
  agents: { testId: 'empty-agents', says: /airlock agent create/ },
  approvals: { testId: 'approvals-empty', says: /appears here/ },
  history: { testId: 'empty-history', says: /appears here/ },
  resources: { testId: 'empty-resources', says: /appears here/ }
}

test('every view opens from the navigation, says why it is empty, and passes the accessibility check', async ({ served, systemBrowser }) => {
  const context = await systemBrowser.newContext({ viewport: { width: 1440, height: 950 } })
  const page = await context.newPage()
  await page.goto(served.url)
  await expect(page.getByTestId('view-agents')).toBeVisible()
  await expect(page.getByTestId('system-footer')).toContainText('web console')
  await expect(page.getByTestId('system-footer')).toContainText(served.home)
  for (const view of views) {
    await page.getByTestId(`nav-${view}`).click()
    await expect(page.getByTestId(`view-${view}`)).toBeVisible()
    await expect(page.getByTestId(`nav-${view}`)).toHaveAttribute('aria-current', 'page')
    const empty = emptyStates[view]
    if (empty) {
      await expect(page.getByTestId(empty.testId)).toContainText(empty.says)
    } else if (view === 'settings') {
      await expect(page.getByTestId('setting-code_execution.providers')).toBeVisible()
      await expect(page.getByTestId('setting-data-directory-home')).toHaveText(served.home)
    } else if (view === 'providers') {
      // Each kind shows exactly what main's probe found on this machine, and why.
      const providers = await probedProviders(served)
      for (const providerId of ['bubblewrap', 'docker']) {
        const probes = providers.find((p) => p.providerId === providerId)!.probes
        expect(probes.length).toBeGreaterThan(0)
        for (const probe of probes) {
          await expect(page.getByTestId(`probe-status-${providerId}-${probe.kind}`)).toHaveText(
            probe.probed ? (probe.available ? 'available' : 'unavailable') : 'per agent'
          )
          // A failed probe shows its cause, and the fix the provider gave apart from it.
          if (probe.reason) await expect(page.getByTestId(`provider-${providerId}`)).toContainText(probe.reason.split(/\.\s+(?:Fix:|Install|Start)/)[0]!)
        }
      }
      await expect(page.getByTestId('provider-trusted_local')).toContainText('not authorised')
    }
    await expectNoSeriousA11yViolations(page, `the ${view} view`)
    await page.addStyleTag({ content: '*, *::before, *::after { transition: none !important; animation: none !important; }' })
    await screenshotBothThemes(page, test.info(), `${view}-fresh`)
  }
  await context.close()
})

test('the token guard: no token is 401, a wrong token is 401', async ({ served, systemBrowser }) => {
  const page = await systemBrowser.newPage()
  const bare = `http://127.0.0.1:${served.port}/`
  expect((await page.goto(bare))!.status()).toBe(401)
  await expect(page.locator('body')).toContainText('missing, wrong or spent credential')
  expect((await page.goto(`${bare}?token=wrong`))!.status()).toBe(401)
  await page.close()
})

test('a foreign Host name that resolves to 127.0.0.1 (DNS rebinding) is rejected', async ({ served, systemBrowser }) => {
  const page = await systemBrowser.newPage()
  const response = await page.goto(`http://rebind.test:${served.port}/?token=${served.token}`)
  expect(response!.status()).toBe(421)
  await page.close()
})

test('the theme follows the OS until the operator picks one, and the pick survives a reload', async ({ served, systemBrowser }) => {
  const context = await systemBrowser.newContext({ colorScheme: 'dark' })
  const page = await context.newPage()
  await page.goto(served.url)
  const html = page.locator('html')
  await expect(html).toHaveAttribute('data-theme', 'dark')
  await page.emulateMedia({ colorScheme: 'light' })
  await expect(html).toHaveAttribute('data-theme', 'light')
  // The toggle cycles system → light → dark; a fixed pick no longer follows the OS.
  const toggle = page.getByTestId('theme-toggle')
  await toggle.click()
  await toggle.click()
  await expect(html).toHaveAttribute('data-theme', 'dark')
  await page.reload()
  await expect(html).toHaveAttribute('data-theme', 'dark')
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.emulateMedia({ colorScheme: 'light' })
  await expect(html).toHaveAttribute('data-theme', 'dark')
  await context.close()
})
