// Live output (issues 25 and 27): what a running command or program prints reaches the dispatcher
// as it arrives, not with the result — through real bubblewrap and a real Docker session
// container — and the consoles are told its lines (`history.output`, `history.live`), bounded under
// a flood; the operator's Cancel ends a command that ignores SIGTERM, and the record says who did.
import type { LiveLines } from '@shared/ipc/history'
import { describe, expect, it } from 'vitest'
import type { ActionResult } from '../../src/main/core'
import { sandboxAgent } from '../support/sandbox-agent'
import { workspaceSandboxes } from '../support/sandbox-providers'

const sandboxes = await workspaceSandboxes()

describe.each(sandboxes)('live output from a $provider sandbox', ({ provider, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => undefined)
  else liveOutputCases(provider)
})

function liveOutputCases(provider: string): void {
  const agent = sandboxAgent(provider, { prefix: 'airlock-live-output-', profile: { capabilities: ['files', 'shell', 'python'], ask: 'never' } })

  /** Runs a call and collects every distinct last line seen while it ran. */
  async function watch(tool: string, input: unknown): Promise<{ result: ActionResult; seen: string[]; after: string | undefined }> {
    const seen: string[] = []
    let callId: string | undefined
    const pending = agent.call(tool, input)
    let done = false
    void pending.finally(() => (done = true))
    while (!done) {
      callId ??= agent.host.agents.dispatcher.running()[0]
      const line = callId ? agent.host.agents.dispatcher.liveOutput.lastLine(callId) : undefined
      if (line !== undefined && seen.at(-1) !== line) seen.push(line)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return { result: await pending, seen, after: callId ? agent.host.agents.dispatcher.liveOutput.lastLine(callId) : undefined }
  }

  it('run_command: each line is seen while the command still runs, then forgotten', async () => {
    const { result, seen, after } = await watch('run_command', { command: 'echo first; sleep 1.5; echo second >&2; sleep 1.5; echo third' })
    expect(result.status).toBe('success')
    expect(seen).toEqual(expect.arrayContaining(['first', 'second']))
    expect(seen.indexOf('first')).toBeLessThan(seen.indexOf('second'))
    expect(after).toBeUndefined()
  }, 60_000)

  /** Starts a call and resolves with its id once it is in flight; `told` collects what the consoles were told. */
  async function start(tool: string, input: unknown) {
    const told: LiveLines[] = []
    const unsubscribe = agent.host.events.subscribe((channel, payload) => {
      if (channel === 'airlock:history:output') told.push(payload as LiveLines)
    })
    const pending = agent.call(tool, input).finally(unsubscribe)
    let callId: string | undefined
    while (!(callId = agent.host.agents.dispatcher.running()[0])) await new Promise((resolve) => setTimeout(resolve, 10))
    return { pending, callId, told }
  }

  /** Waits until `check` holds (polling), or fails after `ms`. */
  async function until(check: () => boolean, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms
    while (!check()) {
      if (Date.now() > deadline) throw new Error('the condition did not hold in time')
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }

  it("the consoles are told each line while it runs, in order and numbered; the shell's directory report never", async () => {
    const { pending, callId, told } = await start('run_command', { command: 'for i in 1 2 3 4; do echo "tick $i"; sleep 0.4; done; echo oops >&2; sleep 0.4' })
    await until(() => told.flatMap((push) => push.lines).some((line) => line.text === 'oops'))
    const live = agent.host.agents.live.live(callId)
    expect(live.running).toBe(true)
    expect(live.policy?.decision).toBe('allow')
    const result = await pending
    expect(result.status).toBe('success')
    const lines = told.flatMap((push) => push.lines)
    expect(lines.map((line) => `${line.n}:${line.stream}:${line.text}`)).toEqual([
      '1:stdout:tick 1',
      '2:stdout:tick 2',
      '3:stdout:tick 3',
      '4:stdout:tick 4',
      '5:stderr:oops'
    ])
    expect(agent.host.agents.live.live(callId)).toEqual({ id: callId, running: false, lines: [], skipped: 0 })
  }, 60_000)

  it('a flood is bounded: each telling and each read is at most 64 Ki characters of the newest lines, the rest counted', async () => {
    const { pending, callId, told } = await start('run_command', {
      command: 'timeout 3 yes "flooding the console with one line after another" || true; sleep 1'
    })
    await until(() => told.reduce((sum, push) => sum + push.skipped, 0) > 0)
    const live = agent.host.agents.live.live(callId)
    expect(live.lines.reduce((sum, line) => sum + line.text.length, 0)).toBeLessThanOrEqual(64 * 1024)
    expect(live.skipped).toBeGreaterThan(0)
    for (const push of told) expect(push.lines.reduce((sum, line) => sum + line.text.length, 0)).toBeLessThanOrEqual(64 * 1024)
    expect((await pending).status).toBe('success')
  }, 60_000)

  it("the operator's Cancel ends a command that ignores SIGTERM: cancelled, partial output kept, the record says the operator", async () => {
    const { pending, callId, told } = await start('run_command', { command: "trap '' TERM; echo started; sleep 60; echo never" })
    await until(() => told.some((push) => push.lines.some((line) => line.text === 'started')))
    expect(agent.host.agents.live.cancel(callId)).toEqual({ cancelled: true })
    const result = await pending
    expect(result.status).toBe('cancelled')
    expect(result.error?.message).toMatch(/operator cancelled/)
    const recorded = agent.host.agents.history.detail(callId)
    expect(recorded.status).toBe('cancelled')
    expect(recorded.error?.message).toMatch(/operator cancelled/)
    expect(recorded.stdout.text ?? '').toContain('started')
    expect(recorded.stdout.text ?? '').not.toContain('never')
    expect(agent.host.agents.live.cancel(callId)).toEqual({ cancelled: false })
  }, 60_000)

  it("run_code: a program's flushed output is seen live", async () => {
    const { result, seen } = await watch('run_code', {
      language: 'python',
      sourceCode: 'import time\nprint("halfway", flush=True)\ntime.sleep(2)\nprint("done")\n'
    })
    expect(result.status, JSON.stringify(result.error)).toBe('success')
    expect(seen).toContain('halfway')
  }, 120_000)
}
