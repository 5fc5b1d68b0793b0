import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Page } from '@playwright/test'
import { serve, type RunningConsole } from '../../src/main/app/serve'
import { makeTempDir } from '../support/temp-home'
import { expect, test } from './fixtures'
import { expectNoSeriousA11yViolations, screenshotBothThemes } from './look'
import { seedHistory, type SeededHistory } from './seed-history'

// History is seeded into a fresh home before the console starts, through the store's own
// ActionCallRepository (hash-chained rows, a real log file) and, for the scale test, 100 000 rows
// inserted in one transaction with their real chain links. Then the host runs in this process, so
// the live test can make real calls through the dispatcher and watch the table follow.
let home: ReturnType<typeof makeTempDir> | undefined
let running: RunningConsole | undefined

async function start(
  options: { older?: number; bulk?: number; empty?: boolean } = {}
): Promise<{ seeded: SeededHistory; url: string; running: RunningConsole }> {
  home = makeTempDir('airlock-e2e-history-', { outsideTmp: true })
  const seeded = options.empty ? (undefined as unknown as SeededHistory) : seedHistory(home.path, options)
  let url = ''
  running = await serve({
    home: home.path,
    port: 0,
    gatewayPort: 0,
    rendererDir: resolve(__dirname, '../../out/renderer'),
    open: false,
    logError: () => undefined,
    print: (line) => (url = line.startsWith('Airlock console: ') ? line.replace('Airlock console: ', '') : url)
  })
  return { seeded, url, running }
}

test.afterEach(async () => {
  await running?.stop()
  home?.remove()
  running = undefined
  home = undefined
})

const rowsIn = (page: Page) => page.getByTestId('table-history').locator('[data-testid^="history-row-"]')
/** Loads the console afresh at `address` (a new document, not a hash change in the open one). */
async function openFresh(page: Page, address: string): Promise<void> {
  await page.goto('about:blank')
  await page.goto(address)
}
const hashQuery = (page: Page) => new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '')

test('History lists calls newest first, filters from the bar and the URL, counts them, opens a call in full, verifies and exports', async ({
  systemBrowser
}) => {
  const { seeded, url } = await start()
  const page = await (await systemBrowser.newContext({ viewport: { width: 1360, height: 900 } })).newPage()
  await page.goto(`${url}#/history`)
  const rows = rowsIn(page)
  const count = page.getByTestId('history-count')

  // Newest first: the call a stopped process left running, which start-up recovery interrupted.
  await expect(rows.first()).toHaveAttribute('data-testid', `history-row-${seeded.unfinished}`)
  await expect(page.getByTestId(`history-status-${seeded.unfinished}`)).toHaveText('interrupted')
  await expect(page.getByTestId(`history-status-${seeded.blocked}`)).toHaveText('blocked')
  await expect(page.getByTestId(`history-row-${seeded.failingTest}`)).toContainText('python3 test_calc.py')
  await expect(page.getByTestId(`history-row-${seeded.failingTest}`)).toContainText('bubblewrap')
  await expect(page.getByTestId(`history-row-${seeded.missingFile}`)).toContainText('missing.txt does not exist')
  await expect(count).toHaveText(`${seeded.total} calls recorded`)
  // Every row is loaded (one page), but only those in view (plus overscan) are in the DOM.
  await expect(page.getByTestId('history-end')).toHaveText(`End of history: all ${seeded.total} calls loaded.`)
  expect(await rows.count()).toBeLessThan(60)
  await expectNoSeriousA11yViolations(page, 'history list')
  await screenshotBothThemes(page, test.info(), 'history-list')

  // Status filter: only the failed call, counted by the host, and kept in the URL.
  await page.getByTestId('history-filter-status').selectOption('error')
  await expect(count).toHaveText('1 call matches these filters')
  await expect(rows).toHaveCount(1)
  await expect(rows.first()).toHaveAttribute('data-testid', `history-row-${seeded.missingFile}`)
  expect(hashQuery(page).get('status')).toBe('error')
  await page.getByTestId('history-filter-status').selectOption('blocked')
  await expect(rows).toHaveCount(1)
  await expect(rows.first()).toHaveAttribute('data-testid', `history-row-${seeded.blocked}`)
  await screenshotBothThemes(page, test.info(), 'history-filtered')

  // Agent and status together answer nothing: the view says so and offers to clear.
  await page.getByTestId('history-filter-status').selectOption('success')
  await page.getByTestId('history-filter-agent').selectOption('reviewer')
  await expect(page.getByTestId('history-no-match')).toContainText('No calls match these filters.')
  await expect(count).toHaveText('0 calls match these filters')
  await page.getByTestId('history-filter-clear').click()
  await expect(count).toHaveText(`${seeded.total} calls recorded`)
  expect(hashQuery(page).toString()).toBe('')

  // Free text (debounced), then the provider filter.
  await page.getByTestId('history-filter-text').pressSequentially('curl', { delay: 30 })
  await expect(rows).toHaveCount(1)
  await expect(rows.first()).toHaveAttribute('data-testid', `history-row-${seeded.blocked}`)
  expect(hashQuery(page).get('q')).toBe('curl')
  await page.getByTestId('history-filter-text').fill('')
  await page.getByTestId('history-filter-provider').selectOption('docker')
  await expect(rows).toHaveCount(1)
  await expect(rows.first()).toHaveAttribute('data-testid', `history-row-${seeded.coloured}`)

  // A link with filters opens the view filtered: the bar shows them and the host counts them.
  await openFresh(page, `${url}#/history?agent=coder&tool=run_command`)
  await expect(page.getByTestId('history-filter-agent')).toHaveValue('coder')
  await expect(page.getByTestId('history-filter-tool')).toHaveValue('run_command')
  await expect(count).toHaveText('3 calls match these filters')
  await expect(rows).toHaveCount(3)

  // The drawer: stderr in full, exit code, the policy's parsed command, provider and isolation facts, chain link.
  await page.getByTestId(`history-row-${seeded.failingTest}`).click()
  const drawer = page.getByTestId('history-drawer')
  await expect(drawer).toBeVisible()
  expect(hashQuery(page).get('id')).toBe(seeded.failingTest)
  await expect(page.getByTestId('history-stderr')).toContainText('AssertionError: add(2, 3) returned -1, expected 5')
  await expect(page.getByTestId('history-stderr')).toContainText('4 lines')
  await expect(page.getByTestId('history-stdout')).toContainText('Empty.')
  // The call ran (status success) and the program failed: shown as its exit, not a green success.
  await expect(page.getByTestId('history-detail-status')).toHaveText('exit 1')
  await expect(page.getByTestId('history-detail-exit')).toContainText('1')
  await expect(page.getByTestId('history-detail-policy')).toContainText('allow')
  await expect(page.getByTestId('history-detail-commands').locator('code')).toHaveText(['python3', 'test_calc.py'])
  await expect(page.getByTestId('history-detail-provider')).toContainText('bubblewrap+seccomp')
  await expect(page.getByTestId('history-detail-provider')).toContainText('syscalls restricted')
  await expect(page.getByTestId('history-detail-provider')).toContainText('the Docker engine is not running')
  await expect(page.getByTestId('history-chain-status').locator('.badge')).toHaveText('not verified')
  await screenshotBothThemes(page, test.info(), 'history-drawer')

  // ANSI colours as styled text (never HTML), the output-limit cut, a fallback, taint before and after, the approval link.
  // The drawer covers the table's right part at this width: click the row where it shows.
  await page.getByTestId(`history-row-${seeded.coloured}`).click({ position: { x: 60, y: 15 } })
  const stdout = page.getByTestId('history-stdout')
  await expect(stdout.locator('.ansi-fg-red.ansi-bold', { hasText: '1 failed' })).toBeVisible()
  await expect(stdout.locator('.ansi-fg-green', { hasText: '4 passed' })).toBeVisible()
  await expect(stdout).not.toContainText('\x1b[')
  await expect(page.getByTestId('history-stdout-truncated')).toContainText('Cut at the agent’s output limit')
  await expect(page.getByTestId('history-detail-fallback')).toContainText('bubblewrap cannot give this profile network access')
  await expect(page.getByTestId('history-taint')).toContainText('PUBLIC')
  await expect(page.getByTestId('history-taint')).toContainText('CONFIDENTIAL')
  await expect(page.getByTestId('history-detail-lineage')).toContainText('https://pypi.org/simple/pytest-cov/')
  await expect(page.getByTestId('history-approval-link')).toHaveAttribute('href', `#/approvals?id=${seeded.colouredApprovalId}`)
  await expectNoSeriousA11yViolations(page, 'history drawer')
  await screenshotBothThemes(page, test.info(), 'history-drawer-ansi')
  await page.keyboard.press('Escape')
  await expect(drawer).toBeHidden()
  expect(hashQuery(page).get('id')).toBeNull()

  // Output over 64 KiB comes back from its log file, drawn in a scrolling box of its own.
  await page.goto(`${url}#/history?tool=run_code`)
  await expect(count).toHaveText('1 call matches these filters')
  await expect(rows).toHaveCount(1)
  await rows.first().click()
  const lines = page.getByTestId('history-stdout-lines')
  await expect(lines).toContainText('line 00000')
  await expect(page.getByTestId('history-stdout')).toContainText(`logs/${seeded.bigOutput}.stdout`)
  await expect(page.getByTestId('history-stdout')).toContainText('12,000 lines')
  await lines.evaluate((element) => (element.scrollTop = element.scrollHeight))
  await expect(lines).toContainText('line 11999')
  expect(await lines.locator('.history-log-line').count()).toBeLessThan(150)
  await expect(page.getByTestId('history-detail-artifacts')).toContainText('report.csv')
  await screenshotBothThemes(page, test.info(), 'history-drawer-log-file')

  // A link to one call opens its drawer; its approval link leads to the Approvals view.
  await openFresh(page, `${url}#/history?id=${seeded.coloured}`)
  await expect(page.getByTestId('history-approval-link')).toBeVisible()
  await page.getByTestId('history-approval-link').click()
  await expect(page.getByTestId('view-approvals')).toBeVisible()
  expect(new URL(page.url()).hash).toBe(`#/approvals?id=${seeded.colouredApprovalId}`)

  // The hash chain checks out over every finished row (the interrupted one included); the drawer says this row is covered.
  await page.goto(`${url}#/history?id=${seeded.blocked}`)
  await page.getByTestId('history-drawer-verify').click()
  await expect(page.getByTestId('history-verification')).toContainText(`Chain intact: ${seeded.total} rows check out`)
  await expect(page.getByTestId('history-chain-status').locator('.badge')).toHaveText('verified')
  await expect(page.getByTestId('history-detail-policy')).toContainText('deny.download_execute')
  await page.getByTestId('history-detail-chain').scrollIntoViewIfNeeded()
  await screenshotBothThemes(page, test.info(), 'history-drawer-chain')
  await page.keyboard.press('Escape')

  // Export: every call as one JSON line each, newest first, saved as a download.
  const download = page.waitForEvent('download')
  await page.getByTestId('history-export').click()
  const file = await (await download).path()
  const exported = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: string; status: string })
  expect(exported).toHaveLength(seeded.total)
  expect(exported[0]!.id).toBe(seeded.unfinished)
  expect(new Set(exported.map((row) => row.id)).size).toBe(seeded.total)
  await expect(page.getByTestId('history-export-progress')).toContainText(`Saved ${seeded.total} calls`)
  await screenshotBothThemes(page, test.info(), 'history-verified-exported')
  await page.context().close()
})

test('History on a fresh home says what will appear and how to get there, once the host answered', async ({ systemBrowser }) => {
  const { url } = await start({ empty: true })
  const page = await (await systemBrowser.newContext({ viewport: { width: 1024, height: 768 } })).newPage()
  await page.goto(`${url}#/history`)
  await expect(page.getByTestId('empty-history')).toContainText('No calls recorded yet')
  await expect(page.getByTestId('empty-history')).toContainText('airlock agent create')
  await expect(page.getByTestId('history-export')).toBeDisabled()
  await expect(page.getByTestId('table-history')).toHaveCount(0)
  await expectNoSeriousA11yViolations(page, 'history empty')
  await screenshotBothThemes(page, test.info(), 'history-empty-1024')
  await page.context().close()
})

test('History follows calls as they happen, on top, without moving the rows the operator is reading', async ({ systemBrowser }) => {
  const { seeded, url, running } = await start({ older: 400 })
  const page = await (await systemBrowser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
  await page.goto(`${url}#/history`)
  const rows = rowsIn(page)
  const count = page.getByTestId('history-count')
  await expect(count).toHaveText(`${seeded.total} calls recorded`)

  const agents = running.host.agents
  agents.service.create('live')
  const { sessionId } = agents.sessions.start('live', 'e2e')
  const written = await agents.sessions.execute({ sessionId, tool: 'write_file', input: { path: 'notes.md', content: 'hello\n' } })
  expect(written.ok).toBe(true)
  const missing = await agents.sessions.execute({ sessionId, tool: 'read_file', input: { path: 'nope.md' } })
  expect(missing.status).toBe('error')

  // At the top: both new calls come in above, without a reload, and the count follows.
  await expect(count).toHaveText(`${seeded.total + 2} calls recorded`)
  await expect(rows.nth(0)).toContainText('read_file')
  await expect(rows.nth(0).locator('[data-status]')).toHaveText('error')
  await expect(rows.nth(1)).toContainText('write_file')
  await expect(rows.nth(1)).toContainText('notes.md')
  await expect(rows.nth(1).locator('[data-status]')).toHaveText('success')
  await expect(page.getByTestId('history-filter-agent').locator('option[value="live"]')).toHaveCount(1)

  // Scrolled down: new calls are added above and the row being read stays where it is.
  const scroller = page.getByTestId('history-scroll')
  await scroller.evaluate((element) => (element.scrollTop = 3000))
  await page.waitForTimeout(100)
  const reading = page.locator('[data-testid^="history-row-"]').nth(14)
  const readingId = (await reading.getAttribute('data-testid'))!
  const before = (await page.getByTestId(readingId).boundingBox())!.y
  await agents.sessions.execute({ sessionId, tool: 'write_file', input: { path: 'more.md', content: 'x\n' } })
  await agents.sessions.execute({ sessionId, tool: 'read_file', input: { path: 'more.md' } })
  await expect(count).toHaveText(`${seeded.total + 4} calls recorded`)
  await expect(page.getByTestId('history-new-rows')).toHaveText('2 new calls')
  const after = (await page.getByTestId(readingId).boundingBox())!.y
  expect(Math.abs(after - before)).toBeLessThan(2)
  await screenshotBothThemes(page, test.info(), 'history-live-new-above')

  // The pill takes the operator to the newest call; Enter opens it from the keyboard.
  await page.getByTestId('history-new-rows').click()
  await expect(page.getByTestId('history-new-rows')).toBeHidden()
  await expect(rows.nth(0)).toContainText('more.md')
  await expect(rows.nth(0)).toBeFocused()
  await page.keyboard.press('j')
  await page.keyboard.press('j')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('history-detail-error')).toContainText('nope.md')
  await page.context().close()
})

test('History with 100 000 calls: first rows painted (time reported), a bounded DOM to the very end, and filters counted right', async ({ systemBrowser }) => {
  test.setTimeout(240_000)
  const { seeded, url } = await start({ bulk: 100_000 })
  const bulk = seeded.bulk!
  const page = await (await systemBrowser.newContext({ viewport: { width: 1920, height: 1080 } })).newPage()
  // A performance mark at the first frame painted with a history row in it, measured from navigation start.
  await page.addInitScript({
    content: `
      const observer = new MutationObserver(() => {
        if (!document.querySelector('[data-testid^="history-row-"]')) return
        observer.disconnect()
        requestAnimationFrame(() => performance.mark('history-first-rows'))
      })
      observer.observe(document, { childList: true, subtree: true })`
  })
  await page.goto(`${url}#/history`)
  const rows = rowsIn(page)
  await expect(rows.first()).toBeVisible()
  const firstPaint = await page.waitForFunction("performance.getEntriesByName('history-first-rows')[0]?.startTime")
  const firstPaintMs = (await firstPaint.jsonValue()) as number
  // Reported, not asserted (tests never assert wall-clock times; the goal is under 1 000 ms).
  test.info().annotations.push({ type: 'first rows painted (ms after navigation)', description: firstPaintMs.toFixed(0) })
  console.log(`history 100k: first rows painted ${firstPaintMs.toFixed(0)} ms after navigation (goal < 1000)`)
  expect(firstPaintMs).toBeGreaterThan(0)
  await expect(page.getByTestId('history-count')).toHaveText(`${seeded.total.toLocaleString('en-US')} calls recorded`)
  await expectNoSeriousA11yViolations(page, 'history at 100k rows')
  await screenshotBothThemes(page, test.info(), 'history-100k-1920')

  // Scroll to the end: every page is fetched by cursor as the scroll nears it, and the DOM stays small.
  const scroller = page.getByTestId('history-scroll')
  const countline = page.getByTestId('history-countline')
  let most = 0
  for (let round = 0; round < 400; round++) {
    const loaded = Number(await countline.getAttribute('data-loaded'))
    if (loaded === seeded.total) break
    await scroller.evaluate((element) => (element.scrollTop = element.scrollHeight))
    await expect(countline).not.toHaveAttribute('data-loaded', String(loaded))
    most = Math.max(most, await rows.count())
  }
  await scroller.evaluate((element) => (element.scrollTop = element.scrollHeight))
  await expect(page.getByTestId('history-end')).toHaveText(`End of history: all ${seeded.total.toLocaleString('en-US')} calls loaded.`)
  await expect(rows.last()).toHaveAttribute('data-testid', `history-row-0000b01c-0000-4000-8000-${(1).toString(16).padStart(12, '0')}`)
  most = Math.max(most, await rows.count())
  test.info().annotations.push({ type: 'most rows in the DOM while scrolling', description: String(most) })
  console.log(`history 100k: at most ${most} rows in the DOM while scrolling to the end`)
  expect(most).toBeLessThan(80)

  // Filters are counted by the host and match what was recorded.
  await page.getByTestId('history-filter-agent').selectOption('triage')
  await expect(page.getByTestId('history-count')).toHaveText(`${bulk.byAgent.triage!.toLocaleString('en-US')} calls match these filters`)
  await expect(rows.first()).toContainText('triage')
  await page.getByTestId('history-filter-agent').selectOption('')
  await page.getByTestId('history-filter-status').selectOption('blocked')
  // The bulk's blocked calls and the seeded curl call.
  await expect(page.getByTestId('history-count')).toHaveText(`${(bulk.byStatus.blocked! + 1).toLocaleString('en-US')} calls match these filters`)
  await page.setViewportSize({ width: 1024, height: 768 })
  await screenshotBothThemes(page, test.info(), 'history-100k-1024-blocked')
  await page.goto(`${url}#/history?q=${bulk.needle.word}`)
  await expect(page.getByTestId('history-count')).toHaveText(`${bulk.needle.count.toLocaleString('en-US')} calls match these filters`)
  await expect(rows.first()).toContainText(bulk.needle.word)
  await page.goto(`${url}#/history?since=${encodeURIComponent(bulk.window.since)}&until=${encodeURIComponent(bulk.window.until)}`)
  await expect(page.getByTestId('history-filter-time')).toHaveValue('custom')
  await expect(page.getByTestId('history-count')).toHaveText(`${bulk.window.count.toLocaleString('en-US')} calls match these filters`)
  await page.context().close()
})
