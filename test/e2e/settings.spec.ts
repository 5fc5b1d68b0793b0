import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'
import { expectNoSeriousA11yViolations, screenshotBothThemes } from './look'

/** Both-theme screenshots without colour transitions caught half-way through the theme switch. */
async function shots(page: Page, name: string): Promise<void> {
  await page.addStyleTag({ content: '*, *::before, *::after { transition: none !important; animation: none !important; }' })
  await screenshotBothThemes(page, test.info(), name)
}

test('auto-allow goes on only through a confirmation that says what it bypasses and what it does not', async ({ served, systemBrowser }) => {
  const context = await systemBrowser.newContext({ viewport: { width: 1440, height: 1000 } })
  const page = await context.newPage()
  await page.goto(`${served.url}#/settings`)
  const autoAllow = page.getByTestId('setting-access_control_policy.auto_allow-input')
  await expect(autoAllow).not.toBeChecked()
  await expect(page.getByTestId('setting-approval-handler')).toContainText('console')
  await expect(page.getByTestId('setting-approval-timeout')).toContainText('600 s (10 min)')
  await expect(page.getByTestId('setting-approval-timeout')).toContainText('approvalTimeoutSeconds')
  await expectNoSeriousA11yViolations(page, 'settings')
  await shots(page, 'settings-top')

  // Cancel leaves it off, here and in the host.
  await autoAllow.click()
  const dialog = page.getByTestId('dialog-auto-allow-confirm')
  await expect(dialog).toBeVisible()
  await expect(dialog).toContainText('Approved without asking you')
  await expect(dialog).toContainText('classification gates')
  await expect(dialog).toContainText('Still enforced')
  await expect(dialog).toContainText('everything the policy blocks')
  await expect(dialog).toContainText('provider and sandbox isolation')
  await expect(dialog).toContainText('network mode')
  await expectNoSeriousA11yViolations(page, 'settings: auto-allow confirmation')
  await shots(page, 'settings-auto-allow-dialog')
  await page.getByTestId('dialog-auto-allow-confirm-cancel').click()
  await expect(dialog).toBeHidden()
  await expect(autoAllow).not.toBeChecked()
  await page.reload()
  await expect(page.getByTestId('setting-access_control_policy.auto_allow-input')).not.toBeChecked()

  // Confirmed: on, with the warning, and still on after a reload.
  await page.getByTestId('setting-access_control_policy.auto_allow-input').click()
  await page.getByTestId('dialog-auto-allow-confirm-confirm').click()
  await expect(page.getByTestId('setting-access_control_policy.auto_allow-input')).toBeChecked()
  await expect(page.getByTestId('auto-allow-warning')).toContainText('Blocked calls, sandboxes, path, command and network limits still apply')
  await page.reload()
  await expect(page.getByTestId('setting-access_control_policy.auto_allow-input')).toBeChecked()
  await shots(page, 'settings-auto-allow-on')

  // Off needs no confirmation.
  await page.getByTestId('setting-access_control_policy.auto_allow-input').click()
  await expect(dialog).toBeHidden()
  await expect(page.getByTestId('setting-access_control_policy.auto_allow-input')).not.toBeChecked()
  await expect(page.getByTestId('auto-allow-warning')).toBeHidden()
  await page.reload()
  await expect(page.getByTestId('setting-access_control_policy.auto_allow-input')).not.toBeChecked()
  await context.close()
})

test('ports are checked as typed, stored, and reset; the data directory is the host\'s', async ({ served, systemBrowser }) => {
  const context = await systemBrowser.newContext({ viewport: { width: 1024, height: 900 } })
  const page = await context.newPage()
  await page.goto(`${served.url}#/settings`)
  await expect(page.getByTestId('setting-data-directory-home')).toHaveText(served.home)
  await expect(page.getByTestId('setting-served-port')).toHaveText(String(served.port))

  const port = page.getByTestId('setting-gateway.port-input')
  await expect(port).toHaveValue('7411')
  await port.fill('eighty')
  await port.press('Enter')
  await expect(page.getByTestId('setting-gateway.port')).toContainText('Enter a whole number.')
  await expect(port).toHaveAttribute('aria-invalid', 'true')
  await port.fill('70000')
  await port.press('Enter')
  await expect(page.getByTestId('setting-gateway.port')).toContainText('65535')
  await page.getByTestId('setting-gateway.port').scrollIntoViewIfNeeded()
  await shots(page, 'settings-port-error-1024')
  await port.fill('7499')
  await port.press('Enter')
  await expect(page.getByTestId('setting-gateway.port-reset')).toBeVisible()

  const idle = page.getByTestId('setting-gateway.idle_timeout_seconds-input')
  await idle.fill('5')
  await idle.press('Enter')
  await expect(page.getByTestId('setting-gateway.idle_timeout_seconds')).toContainText('10')

  await page.reload()
  await expect(page.getByTestId('setting-gateway.port-input')).toHaveValue('7499')
  await expect(page.getByTestId('setting-gateway.idle_timeout_seconds-input')).toHaveValue('1800')
  await page.getByTestId('setting-gateway.port-reset').click()
  await expect(page.getByTestId('setting-gateway.port-input')).toHaveValue('7411')
  await expect(page.getByTestId('setting-gateway.port-reset')).toBeHidden()
  await context.close()
})

test('classification labels are edited per group, refused on the row at fault, and stored', async ({ served, systemBrowser }) => {
  const context = await systemBrowser.newContext({ viewport: { width: 1440, height: 1000 } })
  const page = await context.newPage()
  await page.goto(`${served.url}#/settings`)
  const form = page.getByTestId('setting-policy.labels-form')
  await expect(form).toContainText('0 labels in force')

  await page.getByTestId('setting-labels-domains-add').click()
  await page.getByTestId('setting-label-domains-0-pattern').fill('not a host!')
  await page.getByTestId('setting-labels-paths-add').click()
  await page.getByTestId('setting-label-paths-0-pattern').fill('secrets/**')
  await page.getByTestId('setting-label-paths-0-level').selectOption('RESTRICTED')
  await page.getByTestId('setting-policy.labels-save').click()
  await expect(page.getByTestId('setting-labels-domains')).toContainText('must be a host name or *.suffix')
  await expect(page.getByTestId('setting-label-domains-0-pattern')).toHaveAttribute('aria-invalid', 'true')
  await form.scrollIntoViewIfNeeded()
  await shots(page, 'settings-labels-error')

  await page.getByTestId('setting-label-domains-0-pattern').fill('*.corp.example')
  await page.getByTestId('setting-label-domains-0-level').selectOption('INTERNAL')
  await page.getByTestId('setting-policy.labels-save').click()
  await expect(form).toContainText('2 labels in force')

  // A secret variable name: refused when it is not one, kept when it is.
  const secret = page.getByTestId('setting-policy.secret_env_vars-input')
  await secret.fill('1-bad')
  await secret.press('Enter')
  await expect(page.getByTestId('setting-policy.secret_env_vars')).toContainText('An environment variable name')
  await secret.fill('DEPLOY_TOKEN')
  await secret.press('Enter')
  await expect(page.getByTestId('setting-policy.secret_env_vars')).toContainText('DEPLOY_TOKEN')

  await page.reload()
  await expect(page.getByTestId('setting-label-paths-0-pattern')).toHaveValue('secrets/**')
  await expect(page.getByTestId('setting-label-paths-0-level')).toHaveValue('RESTRICTED')
  await expect(page.getByTestId('setting-label-domains-0-pattern')).toHaveValue('*.corp.example')
  await expect(page.getByTestId('setting-policy.secret_env_vars')).toContainText('DEPLOY_TOKEN')
  await expectNoSeriousA11yViolations(page, 'settings: labels')
  await page.getByTestId('setting-policy.labels-form').scrollIntoViewIfNeeded()
  await shots(page, 'settings-labels-saved')
  await context.close()
})
