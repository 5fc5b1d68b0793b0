import { resolve } from 'node:path'
import { serve, type RunningConsole } from '../../src/main/app/serve'
import { configCanary, runSecretsScenario, secretsIn, secretValues, type SecretsScenario } from '../security/secrets-scenario'
import { makeTempDir } from '../support/temp-home'
import { expect, test } from './fixtures'

// The renderer end of test/security/secrets-scan.test.ts: the same scenario (secrets Airlock was
// told, typed, passed and printed by agents through the real gateway and sandbox, one request
// still waiting in the queue), then every view of the built console in Chromium. Each view's whole
// HTML and visible text, and every WebSocket frame the console sent or received, must hold none
// of the secrets.

/** A call the console sent over its WebSocket. */
type SentCall = { id: number; channel: string; input?: { key?: string } }

/**
 * True for a frame that carries the operator's `code_execution.providers` setting as saved: its
 * candidate config is no secret field (see `configCanary`); the Providers view edits it and
 * writes the order back with each config kept, so the console receives it.
 */
function carriesProviderOrder(frame: { type?: string; channel?: string; payload?: { key?: string } }, call: SentCall | undefined): boolean {
  if (frame.type === 'event') return frame.channel === 'airlock:settings:changed' && frame.payload?.key === 'code_execution.providers'
  return (
    call !== undefined &&
    (call.channel === 'airlock:settings:list' || (call.channel.startsWith('airlock:settings:') && call.input?.key === 'code_execution.providers'))
  )
}

test('no secret reaches any console view or any frame the console exchanges', async ({ systemBrowser }) => {
  test.setTimeout(300_000)
  const home = makeTempDir('airlock-e2e-secrets-', { outsideTmp: true })
  let url = ''
  const running: RunningConsole = await serve({
    home: home.path,
    port: 0,
    gatewayPort: 0,
    rendererDir: resolve(__dirname, '../../out/renderer'),
    open: false,
    logError: () => undefined,
    print: (line) => (url = line.startsWith('Airlock console: ') ? line.replace('Airlock console: ', '') : url)
  })
  let scenario: SecretsScenario | undefined
  try {
    scenario = await runSecretsScenario(running, { leavePending: true })
    const secrets = secretValues(scenario.tokens)
    const context = await systemBrowser.newContext({ viewport: { width: 1440, height: 900 } })
    const page = await context.newPage()
    // Every frame both ways, each answer with the call it answers (ids count per connection).
    const frames: { way: 'sent' | 'received'; text: string; call?: SentCall; frame: { type?: string; channel?: string; payload?: { key?: string } } }[] = []
    page.on('websocket', (socket) => {
      const asked = new Map<number, SentCall>()
      socket.on('framesent', ({ payload }) => {
        const call = JSON.parse(String(payload)) as SentCall
        asked.set(call.id, call)
        frames.push({ way: 'sent', text: String(payload), call, frame: {} })
      })
      socket.on('framereceived', ({ payload }) => {
        const frame = JSON.parse(String(payload)) as { type?: string; id?: number; channel?: string; payload?: { key?: string } }
        frames.push({ way: 'received', text: String(payload), call: frame.id === undefined ? undefined : asked.get(frame.id), frame })
      })
    })
    const views: { where: string; html: string; text: string }[] = []
    const capture = async (where: string) => views.push({ where, html: await page.content(), text: await page.locator('body').innerText() })
    /** Captures the view without the elements `selector` matches (taken out of the page, which is left next), and returns their text. */
    const captureOutside = async (where: string, selector: string): Promise<string[]> => {
      const removed = await page.locator(selector).allInnerTexts()
      await page.evaluate(`document.querySelectorAll(${JSON.stringify(selector)}).forEach((element) => element.remove())`)
      await capture(where)
      return removed
    }
    const open = async (address: string) => {
      await page.goto('about:blank')
      await page.goto(`${url}${address}`)
    }

    // Agents: the list, then each agent's overview, workspace (its .exec_history open), connection and profile.
    await open('#/agents')
    await expect(page.getByTestId('agent-row-coder')).toBeVisible()
    await expect(page.getByTestId('agent-row-reviewer')).toBeVisible()
    await capture('agents list')
    for (const agentId of ['coder', 'reviewer']) {
      await open(`#/agents?agent=${agentId}&tab=overview`)
      await expect(page.getByTestId('agent-usage-totals')).toContainText('calls')
      await capture(`agent ${agentId} overview`)
      await open(`#/agents?agent=${agentId}&tab=workspace&file=.exec_history`)
      await expect(page.getByTestId('workspace-file-path')).toHaveText('.exec_history')
      await expect(page.getByTestId('workspace-file-view')).toContainText('run_command')
      await capture(`agent ${agentId} workspace .exec_history`)
      await page.getByTestId('workspace-show-recent').click()
      await capture(`agent ${agentId} workspace recent`)
      await page.getByTestId('agent-tab-connect').click()
      await expect(page.getByTestId('agent-snippet-generic')).toContainText('Bearer <token>')
      await capture(`agent ${agentId} connect`)
      await page.getByTestId('agent-tab-profile').click()
      await expect(page.getByTestId('agent-profile')).toBeVisible()
      await capture(`agent ${agentId} profile`)
      // The edit form is filled from the profile as the console has it.
      await page.getByTestId('agent-edit-open').click()
      await expect(page.getByTestId('form-agent-profile')).toBeVisible()
      await capture(`agent ${agentId} profile form`)
    }

    // History: the table, then every call's drawer.
    const ids = (await running.host.dispatch('airlock:history:list', {}, { transport: 'websocket' })) as { ok: true; value: { rows: { id: string }[] } }
    // Every finished call, and the one still waiting for the operator.
    expect(ids.value.rows.length).toBe(Object.keys(scenario.results).length + 1)
    await open('#/history')
    await expect(page.getByTestId('table-history').locator('[data-testid^="history-row-"]')).toHaveCount(ids.value.rows.length)
    await capture('history table')
    for (const { id } of ids.value.rows) {
      await open(`#/history?id=${id}`)
      await expect(page.getByTestId('history-drawer')).toBeVisible()
      await expect(page.getByTestId('history-detail-status')).toBeVisible()
      await capture(`history drawer ${id}`)
    }

    // Approvals: the waiting request selected, then the rules.
    await open('#/approvals')
    await expect(page.getByTestId(`approval-item-${scenario.approvals.pending}`)).toBeVisible()
    await page.getByTestId(`approval-item-${scenario.approvals.pending}`).click()
    await expect(page.getByTestId('approval-detail')).toContainText('[redacted]')
    await capture('approvals queue')
    await page.getByTestId('tab-rules').click()
    await capture('approvals rules')

    // Resources: the live handles (the config canary's among them) and the event stream.
    await open('#/resources')
    await expect(page.getByTestId(`resource-row-${scenario.configHandleId}`)).toBeVisible()
    await expect(page.getByTestId('resource-events-list').locator(':scope > li').first()).toBeVisible()
    await page.getByTestId(`resource-row-${scenario.configHandleId}`).click()
    await capture('resources')

    // Providers, whose order editor shows each candidate's config as saved (see configCanary): the config
    // canary is there, and only there; no other secret is in it.
    await open('#/providers')
    await expect(page.getByTestId('provider-order-item-bubblewrap')).toContainText(`config {"apiToken":"${configCanary}"}`)
    const orderEntries = await captureOutside('providers (outside the order editor)', '[data-testid^="provider-order-item-"]')
    expect(orderEntries.length).toBe(2)
    views.push({ where: 'providers order editor', html: '', text: orderEntries.join('\n').replaceAll(configCanary, '') })
    // Settings, which shows the provider order's config only as "with config".
    await open('#/settings')
    await expect(page.getByTestId('setting-code_execution.providers')).toContainText('with config')
    await expect(page.getByTestId('setting-policy.secret_env_vars-input')).toBeVisible()
    await capture('settings')

    // What was on screen: the whole HTML and the visible text of every view.
    const shown = views.flatMap(({ where, html, text }) => secretsIn(`${html}\n${text}`, secrets).map((name) => `${where}: ${name}`))
    expect(views.some(({ text }) => text.includes('[redacted]'))).toBe(true)

    // What crossed the wire: every frame both ways, the provider order's config aside.
    let providerOrderFrames = 0
    const leaked = frames.flatMap(({ way, text, call, frame }) => {
      let scanned = text
      if (way === 'received' && carriesProviderOrder(frame, call)) {
        providerOrderFrames += text.includes(configCanary) ? 1 : 0
        scanned = text.replaceAll(configCanary, '')
      }
      return secretsIn(scanned, secrets).map((name) => `${way} ${frame.type ?? 'call'} ${call?.channel ?? frame.channel ?? '?'}: ${name}`)
    })
    expect({ shown, leaked: [...new Set(leaked)] }).toEqual({ shown: [], leaked: [] })
    expect(providerOrderFrames).toBeGreaterThan(0)
    expect(frames.filter((f) => f.way === 'received').length).toBeGreaterThan(50)
    await context.close()
  } finally {
    await scenario?.close()
    await running.stop()
    await scenario?.waiting
    home.remove()
  }
})
