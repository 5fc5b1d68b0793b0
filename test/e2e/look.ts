import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, type TestInfo } from '@playwright/test'

/**
 * Checks the page with axe-core (WCAG 2 A/AA rules) and fails on any serious or critical
 * violation, naming the rule and the first elements it found.
 */
export async function expectNoSeriousA11yViolations(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  const serious = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
  const described = serious.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
        .slice(0, 3)
        .map((node) => node.target.join(' '))
        .join(' | ')}`
  )
  expect(described, `accessibility violations on ${where}`).toEqual([])
}

/**
 * Switches the console's theme the way a second console window would (localStorage and its
 * `storage` event, which the theme store follows), with transitions off so nothing is caught
 * half-way.
 */
export async function setTheme(page: Page, theme: 'dark' | 'light'): Promise<void> {
  await page.addStyleTag({ content: '*, *::before, *::after { transition: none !important; animation: none !important; }' })
  await page.evaluate(`window.localStorage.setItem('airlock.theme', '${theme}'); window.dispatchEvent(new StorageEvent('storage', { key: 'airlock.theme' }))`)
  await expect(page.locator('html')).toHaveAttribute('data-theme', theme)
}

/**
 * Saves a screenshot of the page in both themes under test-results/ (not committed), switching
 * the console's theme through its own toggle state (localStorage + data-theme), then restores it.
 */
export async function screenshotBothThemes(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  for (const theme of ['dark', 'light'] as const) {
    await setTheme(page, theme)
    await page.screenshot({ path: testInfo.outputPath(`${name}-${theme}.png`), fullPage: false })
  }
}
