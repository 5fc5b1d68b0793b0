import type { Page } from '@playwright/test'
import { expect } from './fixtures'

/**
 * Moves a code-execution provider one place down with dnd-kit's keyboard sensor, the way an
 * operator without a mouse does: focus its handle, Space picks it up, ArrowDown moves it, Space
 * drops it. Each step waits for what the page says (pressed handle, the live region's words).
 */
export async function moveProviderDownByKeyboard(page: Page, providerId: string, toPosition: number): Promise<void> {
  const handle = page.getByTestId(`provider-handle-${providerId}`)
  await handle.focus()
  await page.keyboard.press('Space')
  await expect(handle).toHaveAttribute('aria-pressed', 'true')
  await page.keyboard.press('ArrowDown')
  await expect(page.getByRole('status').filter({ hasText: `${providerId} is over position ${toPosition}.` })).toHaveCount(1)
  await page.keyboard.press('Space')
}
