import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

// Attack: an agent keeps using a session (and its token) after the operator disabled or removed it,
// including a long command already in flight and a file write racing the disable. Safe outcome:
// the in-flight call ends `blocked`, later calls are `blocked` without touching the workspace,
// the token stops authenticating, and every call is recorded.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

describe.skipIf(skip !== undefined)(`a disabled or removed agent${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host

  beforeAll(async () => {
    dir = makeTempDir('airlock-attack-disabled-', { outsideTmp: true })
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
  }, 120_000)

  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  it('stops calls in flight and later, and the token, when disabled; again when removed', async () => {
    const { token } = host.agents.service.create('coder', { profile: { providers: ['bubblewrap'], ask: 'never' } })
    expect(host.agents.service.authenticate(token)?.id).toBe('coder')
    const { sessionId } = host.agents.sessions.start('coder', 'test')
    const call = (tool: string, input: unknown) => host.agents.sessions.execute({ sessionId, tool, input })
    // After a disable the session is closed: a call is refused (thrown) or `blocked`, either is safe.
    const refused = async (tool: string, input: unknown) => {
      try {
        return (await call(tool, input)).status
      } catch (error) {
        return (error as Error).name
      }
    }

    const started = Date.now()
    const inFlight = call('run_command', { command: 'sleep 30; echo late > late.txt' })
    await new Promise((resolve) => setTimeout(resolve, 1500))
    host.agents.service.disable('coder')
    const ended = await inFlight
    expect(ended.status).toBe('blocked')
    expect(Date.now() - started).toBeLessThan(20_000)
    expect(host.agents.service.authenticate(token)).toBeUndefined()

    expect(['blocked', 'SessionClosedError']).toContain(await refused('write_file', { path: 'after-disable.txt', content: 'x' }))
    expect(['blocked', 'SessionClosedError']).toContain(await refused('run_command', { command: 'echo x > after-disable-cmd.txt' }))
    expect(() => host.agents.sessions.start('coder', 'again')).toThrow()

    host.agents.service.enable('coder')
    // The old session stays closed; a new one works.
    expect(['blocked', 'SessionClosedError']).toContain(await refused('write_file', { path: 'after-enable-old-session.txt', content: 'x' }))
    const fresh = host.agents.sessions.start('coder', 'fresh').sessionId
    const listed = await host.agents.sessions.execute({ sessionId: fresh, tool: 'list_directory', input: { path: '.' } })
    const names = (listed.data as { entries: { name: string }[] }).entries.map((entry) => entry.name)
    expect(names).not.toContain('after-disable-cmd.txt')
    expect(names).not.toContain('after-enable-old-session.txt')
    expect(names).not.toContain('after-disable.txt')
    expect(names).not.toContain('late.txt')

    host.agents.service.remove('coder')
    expect(host.agents.service.authenticate(token)).toBeUndefined()
    const afterRemove = await host.agents.sessions.execute({ sessionId: fresh, tool: 'write_file', input: { path: 'after-remove.txt', content: 'x' } }).then(
      (result) => result.status,
      (error: Error) => error.name
    )
    expect(['blocked', 'SessionClosedError']).toContain(afterRemove)

    // A new agent with the same id gets a new token; the old one still does not authenticate.
    host.agents.service.create('coder', { profile: { providers: ['bubblewrap'] } })
    expect(host.agents.service.authenticate(token)).toBeUndefined()
  }, 120_000)
})
