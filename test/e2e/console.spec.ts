import type { ProviderView } from '@shared/ipc'
import WebSocket from 'ws'
import { expect, test } from './fixtures'

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

test('every view opens from the navigation and says why it is empty', async ({ served, systemBrowser }) => {
  const page = await systemBrowser.newPage()
  await page.goto(served.url)
  await expect(page.getByTestId('view-agents')).toBeVisible()
  await expect(page.getByTestId('system-footer')).toContainText('web console')
  await expect(page.getByTestId('system-footer')).toContainText(served.home)
  for (const view of views) {
    await page.getByTestId(`nav-${view}`).click()
    await expect(page.getByTestId(`view-${view}`)).toBeVisible()
    await expect(page.getByTestId(`nav-${view}`)).toHaveAttribute('aria-current', 'page')
    if (view === 'settings') {
      await expect(page.getByTestId('setting-code_execution.providers')).toBeVisible()
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
          if (probe.reason) await expect(page.getByTestId(`provider-${providerId}`)).toContainText(probe.reason)
        }
      }
      await expect(page.getByTestId('provider-trusted_local')).toContainText('not authorised')
    } else {
      await expect(page.getByTestId(`empty-${view}`)).toContainText(/appears? here/)
    }
    await page.screenshot({ path: test.info().outputPath(`${view}.png`), fullPage: true })
  }
  await page.close()
})

test('a setting changed in the console is validated, stored and survives a reload', async ({ served, systemBrowser }) => {
  const page = await systemBrowser.newPage()
  await page.goto(`${served.url}#/settings`)
  const autoAllow = page.getByTestId('setting-access_control_policy.auto_allow-input')
  await expect(autoAllow).not.toBeChecked()
  await autoAllow.click()
  await expect(autoAllow).toBeChecked()
  await expect(page.getByTestId('auto-allow-warning')).toBeVisible()

  const port = page.getByTestId('setting-console.port-input')
  await port.fill('"not a port"')
  await port.press('Enter')
  await expect(page.getByTestId('setting-console.port')).toContainText('input.value')

  await page.reload()
  await expect(page.getByTestId('setting-access_control_policy.auto_allow-input')).toBeChecked()
  await expect(page.getByTestId('setting-console.port-input')).toHaveValue('7410')
  await page.screenshot({ path: test.info().outputPath('settings-changed.png'), fullPage: true })
  await page.close()
})

test('the token guard: no token is 401, a wrong token is 401', async ({ served, systemBrowser }) => {
  const page = await systemBrowser.newPage()
  const bare = `http://127.0.0.1:${served.port}/`
  expect((await page.goto(bare))!.status()).toBe(401)
  await expect(page.locator('body')).toContainText('missing or wrong token')
  expect((await page.goto(`${bare}?token=wrong`))!.status()).toBe(401)
  await page.close()
})

test('a foreign Host name that resolves to 127.0.0.1 (DNS rebinding) is rejected', async ({ served, systemBrowser }) => {
  const page = await systemBrowser.newPage()
  const response = await page.goto(`http://rebind.test:${served.port}/?token=${served.token}`)
  expect(response!.status()).toBe(421)
  await page.close()
})
