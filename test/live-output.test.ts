// Live output (issue 25, the base of issue 27's): what a running command or program prints reaches
// the dispatcher as it arrives, not with the result — through real bubblewrap and a real Docker
// session container, redacted with the agent's secrets, and forgotten when the call ends.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ActionResult } from '../src/main/core'
import { createHost, type Host } from '../src/main/host'
import { createDockerClient } from '../src/main/providers'
import { ensureTestImages } from './support/docker-images'
import { workspaceSandboxes } from './support/sandbox-providers'
import { makeTempDir } from './support/temp-home'

const sandboxes = await workspaceSandboxes()

describe.each(sandboxes)('live output from a $provider sandbox', ({ provider, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => undefined)
  else liveOutputCases(provider)
})

function liveOutputCases(provider: string): void {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let sessionId: string

  beforeAll(async () => {
    if (provider === 'docker') await ensureTestImages(createDockerClient())
    dir = makeTempDir('airlock-live-output-', { outsideTmp: true })
    host = createHost({ home: join(dir.path, 'home'), logError: () => undefined })
    await host.recovered
    host.agents.agents.create('watcher', { profile: { capabilities: ['files', 'shell', 'python'], providers: [provider as 'bubblewrap'], ask: 'never' } })
    sessionId = host.agents.sessions.start('watcher', 'test').sessionId
  }, 300_000)
  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  /** Runs a call and collects every distinct last line seen while it ran. */
  async function watch(tool: string, input: unknown): Promise<{ result: ActionResult; seen: string[]; after: string | undefined }> {
    const seen: string[] = []
    let callId: string | undefined
    const pending = host.agents.sessions.execute({ sessionId, tool, input })
    let done = false
    void pending.finally(() => (done = true))
    while (!done) {
      callId ??= host.agents.dispatcher.running()[0]
      const line = callId ? host.agents.dispatcher.liveOutput.lastLine(callId) : undefined
      if (line !== undefined && seen.at(-1) !== line) seen.push(line)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return { result: await pending, seen, after: callId ? host.agents.dispatcher.liveOutput.lastLine(callId) : undefined }
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
