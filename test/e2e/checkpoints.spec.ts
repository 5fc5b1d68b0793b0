import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { callTool, connectAgent } from '../support/mcp-gateway-client'
import { runAirlockAsync } from '../support/run-cli'
import { serveWithAgents } from '../support/serve-with-agents'
import { expect, test } from './fixtures'
import { expectNoSeriousA11yViolations, screenshotBothThemes, setTheme } from './look'

// Checkpoints and the timeline (issues 28 and 27), against the real product: `airlock serve`, a
// real MCP SDK client as the agent, commands in real bubblewrap sandboxes, the operator in
// Chromium. The agent writes, runs, is denied, and deletes a folder (which no longer asks: the
// checkpoint keeps it); the operator sees the deletion as a diff, reverts it, and the timeline
// tells the whole story in order.

test('an agent deletes a folder; the operator sees the diff, reverts it, and the timeline shows it all in order', async ({ systemBrowser }) => {
  test.setTimeout(180_000)
  const served = await serveWithAgents('airlock-e2e-checkpoints-', { coder: { capabilities: ['files', 'shell'], ask: 'on_risk', approvalTimeoutSeconds: 120 } })
  const coder = await connectAgent(served.gatewayUrl, served.tokens.coder!)
  const page = await (await systemBrowser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  const workspace = join(served.home, 'workspaces', 'coder')
  const ok = async (tool: string, input: Record<string, unknown>) => {
    const result = await callTool(coder.client, tool, input, { timeout: 60_000 })
    expect(result.structuredContent, JSON.stringify(result.structuredContent)).toMatchObject({ ok: true })
    return result.structuredContent.meta as { callId: string }
  }
  try {
    const wrote = await ok('write_file', { path: 'notes/plan.md', content: 'step one\nstep two\n' })
    const built = await ok('run_command', {
      command: 'mkdir -p build/obj && printf "object code\\n" > build/obj/app.o && printf "#!/bin/sh\\n" > build/run.sh && chmod 755 build/run.sh'
    })
    // A deletion of a path known only at run time asks; the operator denies it.
    const asked = callTool(coder.client, 'run_command', { command: 'rm "$(printf notes/plan.md)"' }, { timeout: 120_000 })
    let itemId = ''
    await expect
      .poll(
        async () => {
          const listed = JSON.parse((await runAirlockAsync(['approvals', 'list', '--json', '--home', served.home])).stdout) as { id: number }[]
          itemId = String(listed[0]?.id ?? '')
          return listed.length
        },
        { timeout: 30_000 }
      )
      .toBe(1)
    expect((await runAirlockAsync(['approvals', 'deny', itemId, '--reason', 'keep the plan', '--home', served.home])).code).toBe(0)
    expect((await asked).structuredContent).toMatchObject({ ok: false, status: 'blocked', error: { code: 'approval.denied' } })
    // Deleting the folder by name does not ask: its checkpoint can bring it back.
    const removed = await ok('run_command', { command: 'rm -rf build' })
    expect(existsSync(join(workspace, 'build'))).toBe(false)

    // The operator opens the deleting call in History: the deletion as a diff, then Revert.
    await page.goto(`${served.consoleUrl}#/history?agent=coder&id=${removed.callId}`)
    const changes = page.getByTestId('checkpoint-changes')
    await expect(changes).toBeVisible({ timeout: 15_000 })
    await expect(page.getByTestId('checkpoint-file-build/obj/app.o')).toContainText('deleted')
    await expect(page.getByTestId('checkpoint-file-build/obj/app.o')).toContainText('object code')
    await expectNoSeriousA11yViolations(page, 'history drawer, a call’s changes')
    await screenshotBothThemes(page, test.info(), 'history-checkpoint-changes')
    await setTheme(page, 'light')
    await page.getByTestId('checkpoint-revert').click()
    await expectNoSeriousA11yViolations(page, 'revert confirmation')
    await page.getByTestId('checkpoint-confirm-confirm').click()
    await expect(page.getByTestId('checkpoint-undo-result')).toContainText('Reverted', { timeout: 15_000 })
    expect(readFileSync(join(workspace, 'build', 'obj', 'app.o'), 'utf8')).toBe('object code\n')
    expect(readFileSync(join(workspace, 'build', 'run.sh'), 'utf8')).toBe('#!/bin/sh\n')
    // The agent is told at its next call.
    const next = await callTool(coder.client, 'list_directory', { path: '.' }, { timeout: 60_000 })
    expect((next.structuredContent.meta as { workspaceChanged?: unknown[] }).workspaceChanged).toEqual([
      expect.objectContaining({ by: 'operator', action: 'revert' })
    ])

    // The timeline: newest first, every step in order, the write's and the deletion's diffs in place.
    await page.goto(`${served.consoleUrl}#/agents?agent=coder&tab=timeline`)
    const timeline = page.getByTestId('agent-timeline')
    await expect(timeline).toBeVisible({ timeout: 15_000 })
    const calls = timeline.locator('[data-kind="call"]')
    await expect(calls).toHaveCount(6, { timeout: 15_000 })
    const order = await calls.evaluateAll((items) => items.map((item) => item.textContent ?? ''))
    expect(order[0]).toContain('list_directory')
    expect(order[1]).toContain('checkpoint.revert')
    expect(order[2]).toContain('rm -rf build')
    expect(order[3]).toMatch(/blocked[\s\S]*rm "\$\(printf notes\/plan\.md\)"[\s\S]*denied by the operator[\s\S]*keep the plan/)
    expect(order[4]).toContain('mkdir -p build/obj')
    expect(order[5]).toContain('notes/plan.md')
    await expect(timeline.locator('[data-kind="session"]').last()).toContainText('Connected')
    await page.getByTestId(`timeline-changes-toggle-${wrote.callId}`).click()
    await expect(page.getByTestId(`timeline-call-${wrote.callId}`)).toContainText('+step one')
    await page.getByTestId(`timeline-changes-toggle-${removed.callId}`).click()
    await expect(page.getByTestId(`timeline-call-${removed.callId}`).getByTestId('checkpoint-file-build/obj/app.o')).toContainText('deleted')
    await expect(page.getByTestId(`timeline-history-${built.callId}`)).toHaveAttribute('href', `#/history?agent=coder&id=${built.callId}`)
    await expectNoSeriousA11yViolations(page, 'agent timeline')
    await screenshotBothThemes(page, test.info(), 'agent-timeline')

    // Workspace › Recent changes links each change to its call.
    await page.goto(`${served.consoleUrl}#/agents?agent=coder&tab=workspace`)
    await page.getByTestId('workspace-show-recent').click()
    await expect(page.getByTestId('workspace-change-call-notes/plan.md')).toHaveAttribute('href', `#/history?agent=coder&id=${wrote.callId}`, {
      timeout: 15_000
    })
    await expect(page.getByTestId('workspace-checkpoint-store')).toContainText('Checkpoints keep')
    await expectNoSeriousA11yViolations(page, 'workspace recent changes with their calls')
    await screenshotBothThemes(page, test.info(), 'workspace-recent-changes')
  } finally {
    await coder.close()
    await page.close()
    await served.stop()
  }
})
