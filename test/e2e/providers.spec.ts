import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, realpathSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { Page } from '@playwright/test'
import { checkEngine, createDockerClient } from '../../src/main/providers'
import { serve } from '../../src/main/app/serve'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'
import { expect, test } from './fixtures'
import { expectNoSeriousA11yViolations, screenshotBothThemes } from './look'
import { moveProviderDownByKeyboard } from './provider-order'

/** Both-theme screenshots without colour transitions caught half-way through the theme switch. */
async function shots(page: Page, name: string): Promise<void> {
  await page.addStyleTag({ content: '*, *::before, *::after { transition: none !important; animation: none !important; }' })
  await screenshotBothThemes(page, test.info(), name)
}

/** The provider ids of the order list, top to bottom, as the operator sees them. */
async function shownOrder(page: Page): Promise<string[]> {
  return page
    .getByTestId('provider-order')
    .locator(':scope > li')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-testid')!.replace('provider-order-item-', '')))
}

test('reorder the code-execution providers by keyboard; the order and each config survive a reload', async ({ served, systemBrowser }) => {
  const page = await systemBrowser.newPage({ viewport: { width: 1440, height: 1000 } })
  await page.goto(`${served.url}#/providers`)
  await expect(page.getByTestId('provider-order-item-bubblewrap')).toBeVisible()
  expect(await shownOrder(page)).toEqual(['bubblewrap', 'docker'])
  // The probe answered: each candidate says what its code-execution probe found here.
  await expect(page.getByTestId('provider-order-status-bubblewrap')).toHaveText(/^(available|unavailable)$/)
  await shots(page, 'providers-order')

  // Keyboard drag and drop (dnd-kit): focus the handle, Space picks up, ArrowDown moves, Space drops.
  // dnd-kit's live region tells a screen reader where the row is, in the view's own words.
  await moveProviderDownByKeyboard(page, 'bubblewrap', 2)
  await expect.poll(() => shownOrder(page)).toEqual(['docker', 'bubblewrap'])
  await expect(page.getByTestId('provider-move-up-docker')).toBeDisabled()
  await expect(page.getByTestId('provider-move-up-bubblewrap')).toBeEnabled()

  await page.reload()
  await expect(page.getByTestId('provider-order-item-docker')).toBeVisible()
  expect(await shownOrder(page)).toEqual(['docker', 'bubblewrap'])

  // A per-candidate config: refused inline while it is not a JSON object, then saved.
  await page.getByTestId('provider-config-docker').click()
  const field = page.getByTestId('form-provider-config-docker').getByRole('textbox')
  await field.fill('["strict"]')
  await page.getByTestId('provider-config-save-docker').click()
  await expect(page.getByTestId('provider-config-field-docker-error')).toHaveText('The config must be a JSON object, e.g. {"profile": "strict"}.')
  await expect(field).toHaveAttribute('aria-invalid', 'true')
  await shots(page, 'providers-config-error')
  await field.fill('{"profile": "strict"}')
  await page.getByTestId('provider-config-save-docker').click()
  await expect(page.getByTestId('form-provider-config-docker')).toBeHidden()
  await expect(page.getByTestId('provider-order-item-docker')).toContainText('config {"profile":"strict"}')

  // The move buttons reorder too, and the config travels with its provider.
  await page.getByTestId('provider-move-down-docker').click()
  await expect.poll(() => shownOrder(page)).toEqual(['bubblewrap', 'docker'])
  await page.reload()
  await expect(page.getByTestId('provider-order-item-docker')).toContainText('config {"profile":"strict"}')
  expect(await shownOrder(page)).toEqual(['bubblewrap', 'docker'])

  // The Settings view reads the same stored value.
  await page.getByTestId('nav-settings').click()
  await expect(page.getByTestId('setting-code_execution.providers')).toContainText(/bubblewrap\s*docker with config/)

  // One click: the strongest isolation first (gvisor, a separate kernel), docker's config kept.
  await page.getByTestId('nav-providers').click()
  const preset = page.getByTestId('provider-preset-strongest')
  await preset.click()
  await expect.poll(() => shownOrder(page)).toEqual(['gvisor', 'docker', 'bubblewrap'])
  await expect(preset).toBeDisabled()
  await expect(page.getByTestId('provider-order-item-docker')).toContainText('config {"profile":"strict"}')
  await expect(page.getByTestId('provider-order-status-gvisor')).toHaveText(/^(available|unavailable)$/)
  if ((await page.getByTestId('provider-order-status-gvisor').textContent()) === 'available')
    await expect(page.getByTestId('provider-order-item-gvisor')).toContainText('gvisor · separate kernel · network none')
  await page.reload()
  expect(await shownOrder(page)).toEqual(['gvisor', 'docker', 'bubblewrap'])
  await shots(page, 'providers-strongest-first')
  await page.close()
})

test('the Providers view explains the isolation policy, states axes as claimed, and verifies them with the doctor', async ({ served, systemBrowser }) => {
  test.setTimeout(180_000)
  const context = await systemBrowser.newContext({ viewport: { width: 1024, height: 900 } })
  const page = await context.newPage()
  await page.goto(`${served.url}#/providers`)
  const policy = page.getByTestId('provider-isolation-policy')
  for (const word of ['required', 'preferred', 'none', 'unsafeFallback', 'allowUnsafeLocal']) await expect(policy).toContainText(word)
  await expect(policy).toContainText('Set per agent in its profile')
  // trusted_local is never authorised globally: its probe says why, and how to authorise it per agent.
  await expect(page.getByTestId('probe-status-trusted_local-code_execution')).toHaveText('unavailable')
  await expect(page.getByTestId('probe-fix-trusted_local-code_execution')).toContainText('allowUnsafeLocal: true')
  // Before the doctor ran, the axes are claimed and said to be not verified yet.
  const summary = page.getByTestId('providers-doctor-summary')
  await expect(summary).toContainText('has not run on this machine yet')
  const bubblewrap = page.getByTestId('provider-bubblewrap')
  await expect(page.getByTestId('probe-status-bubblewrap-code_execution')).toHaveText('available')
  const axes = bubblewrap.locator('table').first()
  await expect(axes).toContainText('Not verified yet: run the doctor')
  await expect(axes.locator('tbody tr')).toHaveCount(5)
  await expectNoSeriousA11yViolations(page, 'providers')
  await page.getByTestId('provider-isolation-policy').scrollIntoViewIfNeeded()
  await shots(page, 'providers-1024')

  // The doctor tries real escapes in each provider; every axis bubblewrap claims comes out verified.
  await page.getByTestId('providers-doctor-run').click()
  await expect(summary).toContainText('trying real escapes')
  await expect(summary).toContainText(/Doctor ran .*: \d+ axes verified, 0 failed/, { timeout: 150_000 })
  for (const axis of ['processContained', 'hostFilesystemRestricted', 'privilegeEscalationBlocked', 'syscallsRestricted', 'networkOff']) {
    await expect(page.getByTestId(`doctor-axis-bubblewrap-${axis}`)).toContainText(/verified \(\d+\/\d+ held\)/)
  }
  await expect(axes).toContainText('The doctor tried real escapes')
  // Stored by the host: a reload shows the same report.
  await page.reload()
  await expect(summary).toContainText(/Doctor ran .*: \d+ axes verified, 0 failed/)
  await expectNoSeriousA11yViolations(page, 'providers after the doctor')
  await page.getByTestId('providers-doctor').scrollIntoViewIfNeeded()
  await shots(page, 'providers-doctor-1024')
  await page.getByTestId('provider-trusted_local').scrollIntoViewIfNeeded()
  await shots(page, 'providers-probes-1024')
  await context.close()
})

const docker = createDockerClient()
const engineCheck = checkEngine(docker)

/** A tiny root filesystem with just the host's bash and the libraries it loads, as a tarball (what an operator may hand in). */
function bashRootfs(root: string): string {
  const libraries = [...execFileSync('ldd', ['/bin/bash'], { encoding: 'utf8' }).matchAll(/(\/\S+) \(0x/g)].map((match) => match[1]!)
  for (const [from, to] of [['/bin/bash', '/usr/bin/bash'], ...libraries.map((file) => [file, file])] as const) {
    mkdirSync(join(root, dirname(to)), { recursive: true, mode: 0o755 })
    copyFileSync(realpathSync(from), join(root, to))
  }
  chmodSync(join(root, 'usr', 'bin', 'bash'), 0o755)
  const tarball = `${root}.tar`
  execFileSync('tar', ['--numeric-owner', '--owner=0', '--group=0', '-C', root, '-cf', tarball, '.'])
  return tarball
}

// The host runs in this process so the test can hand it a root filesystem (no Debian mirror
// needed) and a fresh image tag: the provisioning itself is real (docker import, then bash run
// in the image as the sandbox uid), and the tag is removed afterwards.
test('provision a Docker image from the Providers view and watch its progress to the end', async ({ systemBrowser }) => {
  const engine = await engineCheck
  const reason = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })
  test.skip(reason !== undefined, reason)
  test.setTimeout(180_000)
  const home = makeTempDir('airlock-e2e-images-', { outsideTmp: true })
  const tag = `e2e-${process.pid}-${Date.now()}`
  let logged = ''
  const running = await serve({
    home: home.path,
    port: 0,
    gatewayPort: 0,
    rendererDir: resolve(__dirname, '../../out/renderer'),
    open: false,
    imageProvisioning: { rootfsTarball: bashRootfs(join(home.path, 'rootfs')), tag },
    print: (line) => (logged = line.startsWith('Airlock console: ') ? line : logged)
  })
  try {
    const page = await systemBrowser.newPage({ viewport: { width: 1920, height: 1100 } })
    await page.goto(`${logged.replace('Airlock console: ', '')}#/providers`)
    const images = page.getByTestId('provider-images')
    await expect(images.getByTestId('provider-images-engine')).toHaveText('engine reachable')
    const button = page.getByTestId('provider-provision-bash')
    await expect(button).toBeEnabled()
    await images.scrollIntoViewIfNeeded()
    await shots(page, 'providers-images-1920')

    await button.click()
    const progress = page.getByTestId('provider-image-progress')
    await expect(progress).toBeVisible()
    // While it runs the other languages wait: one provisioning at a time.
    await expect(page.getByTestId('provider-provision-python')).toBeDisabled()
    await expect(progress).toContainText(`airlock/bash:${tag}: provisioned`, { timeout: 150_000 })
    await expect(progress.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100')
    await expect(page.getByTestId('provider-image-bash')).toContainText(`airlock/bash:${tag}`)
    await expect(button).toHaveText('Provision again')
    await expect(page.getByTestId('provider-provision-python')).toBeEnabled()
    await shots(page, 'providers-images-provisioned')
    await page.close()
  } finally {
    await running.stop()
    await docker
      .getImage(`airlock/bash:${tag}`)
      .remove({ force: true })
      .catch(() => undefined)
    home.remove()
  }
})
