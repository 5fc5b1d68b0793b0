// Live output (issue 25, the base of issue 27's): what a running command or program prints reaches
// the dispatcher as it arrives, not with the result — through real bubblewrap and a real Docker
// session container, redacted with the agent's secrets, and forgotten when the call ends.
import { describe, expect, it } from 'vitest'
import type { ActionResult } from '../src/main/core'
import { sandboxAgent } from './support/sandbox-agent'
import { workspaceSandboxes } from './support/sandbox-providers'

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

  it('run_code: a program\'s flushed output is seen live', async () => {
    const { result, seen } = await watch('run_code', { language: 'python', sourceCode: 'import time\nprint("halfway", flush=True)\ntime.sleep(2)\nprint("done")\n' })
    expect(result.status, JSON.stringify(result.error)).toBe('success')
    expect(seen).toContain('halfway')
  }, 120_000)
}
